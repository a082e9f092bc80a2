import {
  ContentProtectionClient,
  describeAiDetection,
  ReportLocale,
  verifyWebhook,
  WatermarkOrder,
  WebhookVerificationError,
} from '@cp/sdk';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { IncomingMessage, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { errorOutput, protectHint, traceHint } from './error-output';
import { fileSource } from './file-argument';
import { EXIT_CODES_HELP, ExitCode, exitCodeFor } from './exit-codes';
import { Io, Progress } from './progress';
import { traceOutcome } from './trace-outcome';
import { createWebhookListener, LISTEN_LIMITS, ListenerLimits } from './webhook-listener';

const LOCALES: ReportLocale[] = ['ko-KR', 'en-US', 'ja-JP'];
const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';
const USAGE_ERROR = 'cpx.usage';

interface GlobalOptions {
  apiKey?: string;
  baseUrl: string;
  json: boolean;
  timeout: number;
}

function seconds(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    throw new InvalidArgumentError('must be a positive number of seconds');
  }
  return parsed;
}

function portNumber(value: string): string {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError('must be a port number, 0 to 65535');
  }
  return value;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `cpx orders get` as text: an AI detection leads with its verdict (the spec category beside it, never alone). */
export function orderLines(order: WatermarkOrder): string {
  return [
    `order ${order.orderId}\t${order.status}${order.processingDelayed ? ' (processing delayed)' : ''}\texpires ${order.expiresAt ?? '-'}`,
    ...order.outputs.map((output) => `output ${output.fileId}\t${output.status}\t${output.watermarkText}`),
    ...(order.result ? [`result\t${order.result.detectionStatus}\t${order.result.watermarkText ?? ''}`] : []),
    ...(order.detection ? [`detection\t${describeAiDetection(order.detection)}`] : []),
    ...(order.detection?.files ?? []).map((file) => `file ${file.fileId}\t${file.verdict}\t${describeAiDetection(file)}`),
    ...order.reports.map((report) => `report ${report.locale}\t${report.status}`),
  ].join('\n');
}

/** The `cpx` command line; `run` resolves to the exit code instead of exiting, so tests can call it. */
export class Cli {
  private exitCode: ExitCode = ExitCode.OK;
  /** What the CLI can tell from the command line about a request the API may refuse (printed with VALIDATION_FAILED). */
  private hint: string | null = null;

  constructor(
    private readonly io: Io,
    private readonly env: NodeJS.ProcessEnv,
    /** The receiver's body cap and timeouts (`webhooks listen`); tests shorten the timeouts. */
    private readonly listenLimits: ListenerLimits = LISTEN_LIMITS,
  ) {}

  async run(argv: string[]): Promise<ExitCode> {
    const program = this.program();
    try {
      await program.parseAsync(argv, { from: 'user' });
    } catch (error) {
      if (error instanceof CommanderError) {
        // --help ends here with exit code 0; commander has printed its own usage errors, ours are printed here.
        if (error.code === USAGE_ERROR) {
          this.io.stderr.write(`error: ${error.message}\n`);
        }
        return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
      }
      const code = exitCodeFor(error);
      this.io.stderr.write(errorOutput(error, this.hint, program.opts<GlobalOptions>().json));
      return code;
    }
    return this.exitCode;
  }

  private program(): Command {
    const program = new Command('cpx')
      .description('Content protection from the command line: invisible watermarks per recipient, tracing leaks, PDF reports, webhooks.')
      .option('--api-key <key>', 'API key, sk_live_… or sk_test_… (default: env CP_API_KEY)')
      .option('--base-url <url>', 'API base URL (env: CP_BASE_URL)', this.env.CP_BASE_URL ?? DEFAULT_BASE_URL)
      .option('--json', 'print results as JSON on stdout, no progress', false)
      .addOption(new Option('--timeout <seconds>', 'how long to wait for an order or report').argParser(seconds).default(600))
      .addHelpText('after', EXIT_CODES_HELP)
      .exitOverride()
      .configureOutput({ writeOut: (text) => this.io.stdout.write(text), writeErr: (text) => this.io.stderr.write(text) })
      .showHelpAfterError();

    program
      .command('protect')
      .description('watermark files once per recipient and save the marked copies')
      .argument('<files...>', 'image or PDF files (paths), or public https:// URLs the service fetches itself')
      .option('-r, --recipient <text>', 'watermark text of one recipient (repeat for each; at least one)', collect, [])
      .option('-o, --out <dir>', 'folder for the marked files', '.')
      .option('--idempotency-key <key>', 'reuse to make a retried command return the same order')
      .addHelpText('after', '\nExample:\n  cpx protect photo.jpg contract.pdf --recipient alice --recipient bob --out ./marked')
      .action(async (files: string[], options: { recipient: string[]; out: string; idempotencyKey?: string }) => {
        const global = program.opts<GlobalOptions>();
        if (options.recipient.length === 0) {
          throw new CommanderError(ExitCode.USAGE, USAGE_ERROR, 'give at least one --recipient');
        }
        this.hint = protectHint(files, options.recipient);
        const progress = new Progress(this.io, global.json);
        try {
          const result = await this.client(global).protect({
            files: files.map(fileSource),
            recipients: options.recipient,
            outDir: options.out,
            idempotencyKey: options.idempotencyKey,
            timeoutMs: global.timeout * 1000,
            onProgress: progress.onProgress,
          });
          progress.stop();
          const outputs = result.outputs.map(({ fileId, recipient, inputFileName, path }) => ({ fileId, recipient, inputFileName, path }));
          this.print(global, { orderId: result.orderId, outputs }, () =>
            [`order ${result.orderId} complete`, ...outputs.map((output) => `${output.recipient}\t${output.inputFileName}\t${output.path}`)].join('\n'),
          );
        } finally {
          progress.stop();
        }
      });

    program
      .command('trace')
      .description('check a suspect copy against its original and name the recipient it was made for')
      .argument('<suspect>', 'the leaked or found copy')
      .requiredOption('--original <file>', 'the original file the copies were made from')
      .addHelpText(
        'after',
        [
          '',
          'Exit codes of the outcome (the first word of the printed line is the detection status):',
          `  ${ExitCode.OK}   detected: a watermark was found`,
          `  ${ExitCode.NOT_DETECTED}   not_detected: the file was checked, no watermark found`,
          `  ${ExitCode.TRACE_INCONCLUSIVE}  inconclusive: a possible watermark below the confidence threshold, neither detected nor clean`,
          `  ${ExitCode.TRACE_NOT_CHECKED}  error: the file could not be checked (detection failed)`,
          `  ${ExitCode.TRACE_UNSUPPORTED}  unsupported: the file could not be checked (outside what can be checked)`,
          '',
          'Example:',
          '  cpx trace --original photo.jpg leaked.jpg',
        ].join('\n'),
      )
      .action(async (suspect: string, options: { original: string }) => {
        const global = program.opts<GlobalOptions>();
        this.hint = traceHint(options.original, suspect);
        const progress = new Progress(this.io, global.json);
        try {
          const traced = await this.client(global).trace({
            original: options.original,
            suspect,
            timeoutMs: global.timeout * 1000,
            onProgress: progress.onProgress,
          });
          progress.stop();
          const outcome = traceOutcome(traced.orderId, traced.result);
          this.print(global, { orderId: traced.orderId, ...traced.result }, () => outcome.line);
          this.exitCode = outcome.exitCode;
        } finally {
          progress.stop();
        }
      });

    program
      .command('report')
      .description('create the PDF detection report of an extract (trace) order and download it')
      .argument('<orderId>', 'the extract order')
      .addOption(new Option('-l, --locale <locale>', 'report language').choices(LOCALES).default('en-US'))
      .option('-o, --out <file>', 'where to write the PDF (default <orderId>-report-<locale>.pdf)')
      .addHelpText('after', '\nExample:\n  cpx report 42 --locale ko-KR')
      .action(async (orderId: string, options: { locale: ReportLocale; out?: string }) => {
        const global = program.opts<GlobalOptions>();
        const progress = new Progress(this.io, global.json);
        const outFile = options.out ?? `${orderId}-report-${options.locale}.pdf`;
        try {
          const result = await this.client(global).report(orderId, options.locale, { outFile, timeoutMs: global.timeout * 1000, onProgress: progress.onProgress });
          progress.stop();
          this.print(global, { orderId, locale: options.locale, path: result.path, bytes: result.pdf.length }, () => `${result.path}\t${result.pdf.length} bytes`);
        } finally {
          progress.stop();
        }
      });

    const orders = program.command('orders').description('read orders');
    orders
      .command('get')
      .description('show one order (status, outputs, extract result, reports)')
      .argument('<orderId>')
      .action(async (orderId: string) => {
        const global = program.opts<GlobalOptions>();
        const order = await this.client(global).getOrder(orderId);
        this.print(global, order, () => orderLines(order));
      });

    const webhooks = program.command('webhooks').description('receive webhooks');
    webhooks
      .command('listen')
      .description('run a local receiver that verifies signatures and prints each event')
      .option('-p, --port <port>', 'port to listen on (0: any free port)', portNumber, '8787')
      .option('--host <host>', 'interface to bind', '127.0.0.1')
      .option('--secret <secret>', 'the webhook signing secret, whsec_… (default: env CP_WEBHOOK_SECRET)')
      .option('--register', 'register this receiver as a webhook of the account first (the secret comes from the API), and delete it on exit', false)
      .option('--once', 'exit after the first verified event', false)
      .addHelpText('after', '\nExample:\n  cpx webhooks listen --register --port 8787')
      .action(async (options: { port: string; host: string; secret?: string; register: boolean; once: boolean }) => {
        await this.listen(program.opts<GlobalOptions>(), options);
      });

    return program;
  }

  private async listen(global: GlobalOptions, options: { port: string; host: string; secret?: string; register: boolean; once: boolean }): Promise<void> {
    options.secret ??= this.env.CP_WEBHOOK_SECRET;
    if (!options.register && !options.secret) {
      throw new CommanderError(ExitCode.USAGE, USAGE_ERROR, 'give --secret (or CP_WEBHOOK_SECRET), or --register');
    }
    let secret = options.secret ?? '';
    let stopRequested: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stopRequested = resolve));
    // Bodies over 1 MiB are refused (413) and slow clients dropped, before any of this runs (webhook-listener.ts).
    const server = createWebhookListener((body: Buffer, request: IncomingMessage, response: ServerResponse) => {
      try {
        const { scheme, event } = verifyWebhook(body, request.headers, secret);
        response.writeHead(200).end();
        this.print(global, { verified: true, scheme, event }, () => `${event.occurredAt}\t${event.eventType}\torder ${event.data.orderId}\t${event.data.status}\t(${scheme})`);
        if (options.once) {
          stopRequested();
        }
      } catch (error) {
        response.writeHead(error instanceof WebhookVerificationError ? 401 : 400).end();
        this.io.stderr.write(`rejected delivery: ${(error as Error).message}\n`);
      }
    }, this.listenLimits);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'EADDRINUSE'
            ? new CommanderError(ExitCode.USAGE, USAGE_ERROR, `cannot listen on ${options.host}:${options.port}: the address is already in use (EADDRINUSE)`)
            : error,
        ),
      );
      server.listen(Number(options.port), options.host, resolve);
    });
    const url = `http://${options.host}:${(server.address() as AddressInfo).port}/`;
    let registered: number | undefined;
    const client = options.register ? this.client(global) : undefined;
    try {
      if (client) {
        const webhook = await client.createWebhook(`cpx listen ${url}`, url);
        registered = webhook.id;
        secret = webhook.secret;
      }
      this.io.stderr.write(`listening on ${url}${registered !== undefined ? ` (webhook ${registered} registered)` : ''}; Ctrl-C stops\n`);
      const interrupt = (): void => stopRequested();
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      await stopped;
      process.off('SIGINT', interrupt);
      process.off('SIGTERM', interrupt);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (client && registered !== undefined) {
        await client.deleteWebhook(registered);
      }
    }
  }

  private client(global: GlobalOptions): ContentProtectionClient {
    const apiKey = global.apiKey ?? this.env.CP_API_KEY;
    if (!apiKey) {
      throw new CommanderError(ExitCode.USAGE, USAGE_ERROR, 'no API key: set CP_API_KEY or pass --api-key');
    }
    // --base-url is not parsed by commander when it comes from CP_BASE_URL: both are checked here, before any request
    if (!/^https?:\/\/[^/]/i.test(global.baseUrl) || !URL.canParse(global.baseUrl)) {
      throw new CommanderError(ExitCode.USAGE, USAGE_ERROR, `the API base URL ${JSON.stringify(global.baseUrl)} is not an http:// or https:// URL (--base-url or CP_BASE_URL)`);
    }
    return new ContentProtectionClient({ apiKey, baseUrl: global.baseUrl });
  }

  private print(global: GlobalOptions, value: unknown, text: () => string): void {
    this.io.stdout.write(global.json ? `${JSON.stringify(value)}\n` : `${text()}\n`);
  }
}

import type { ProgressEvent } from '@cp/sdk';
import { MultiBar, Presets, SingleBar } from 'cli-progress';

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * Progress of a workflow on stderr (stdout keeps the results, for pipes): bars on a terminal, one plain
 * line per step otherwise, nothing with --json.
 */
export class Progress {
  private readonly bars?: MultiBar;
  private readonly uploads = new Map<string, SingleBar>();
  private processing?: SingleBar;
  private lastLine = '';

  constructor(
    private readonly io: Io,
    private readonly quiet: boolean,
  ) {
    if (!quiet && io.stderr.isTTY) {
      this.bars = new MultiBar(
        { format: ' {bar} {percentage}% | {label}', hideCursor: true, clearOnComplete: false, stream: io.stderr },
        Presets.shades_classic,
      );
    }
  }

  readonly onProgress = (event: ProgressEvent): void => {
    if (this.quiet) {
      return;
    }
    if (this.bars) {
      this.draw(event);
    } else {
      this.line(event);
    }
  };

  stop(): void {
    this.bars?.stop();
  }

  private draw(event: ProgressEvent): void {
    const bars = this.bars!;
    switch (event.stage) {
      case 'upload': {
        let bar = this.uploads.get(event.fileName);
        if (!bar) {
          bar = bars.create(Math.max(1, event.total), 0, { label: `upload ${event.fileName}` });
          this.uploads.set(event.fileName, bar);
        }
        bar.update(event.sent);
        break;
      }
      case 'processing':
        this.processing ??= bars.create(Math.max(1, event.total), 0, { label: `order ${event.orderId}` });
        this.processing.setTotal(Math.max(1, event.total));
        this.processing.update(event.total === 0 && event.status === 'complete' ? 1 : event.done, { label: `order ${event.orderId} ${event.status}` });
        break;
      default:
        bars.log(`${this.describe(event)}\n`);
    }
  }

  private line(event: ProgressEvent): void {
    // Plain mode: one line per step; uploads only when they start and end.
    if (event.stage === 'upload' && event.sent !== 0 && event.sent !== event.total) {
      return;
    }
    const text = this.describe(event);
    if (text !== this.lastLine) {
      this.lastLine = text;
      this.io.stderr.write(`${text}\n`);
    }
  }

  private describe(event: ProgressEvent): string {
    switch (event.stage) {
      case 'created':
        return `order ${event.orderId} created`;
      case 'upload':
        return `upload ${event.fileName} ${event.total === 0 ? 100 : Math.round((100 * event.sent) / event.total)}% of ${event.total} bytes`;
      case 'processing':
        return `order ${event.orderId} ${event.status}${event.total > 0 ? ` ${event.done}/${event.total} outputs` : ''}`;
      case 'download':
        return `order ${event.orderId} downloading results`;
      case 'report':
        return `report of order ${event.orderId} ${event.status}`;
    }
  }
}

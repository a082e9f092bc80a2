import { ContentProtectionError, FileSource, sourceName, WebhookVerificationError } from '@cp/sdk';
import { fileSource } from './file-argument';

/*
 * The API answers a refused request with its code only (`{ code }`, spec 7), so a hint can only come from what the
 * CLI itself knows: the command line. These are the request rules of the public contract the CLI can check on its
 * own arguments; a hint is printed only when one of them is broken, never a guess at what the server disliked.
 */

/** Spec 4.1: `files[].fileName` extensions of an embed order. */
export const EMBED_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'tif', 'tiff', 'pdf'] as const;
/** Spec 4.2 rule 1: what may be inspected against an image original, and against a PDF original. */
export const INSPECTABLE_AGAINST_IMAGE = ['jpg', 'jpeg', 'png', 'webp', 'bmp', 'tif', 'tiff'] as const;
export const INSPECTABLE_AGAINST_PDF = ['pdf', 'png', 'jpg', 'jpeg'] as const;
/** Spec 8. */
const MAX_FILE_NAME = 255;
const MAX_FILES = 100;
const MAX_TEXTS = 10;
const MAX_TEXT_LENGTH = 1000;

/** The file name the SDK sends for a command-line argument taken as `source` (a bad URL: the argument itself). */
function fileNameOf(argument: string, source: FileSource = argument): string {
  try {
    return sourceName(source);
  } catch {
    return argument;
  }
}

function extensionOf(fileName: string): string | null {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 && dot < fileName.length - 1 ? fileName.slice(dot + 1).toLowerCase() : null;
}

function extensionProblem(fileName: string, allowed: readonly string[], what: string): string | null {
  const extension = extensionOf(fileName);
  if (extension !== null && allowed.includes(extension)) {
    return null;
  }
  const has = extension === null ? 'has no file extension' : `has the extension .${extension}`;
  return `${fileName} ${has}; ${what} accepts ${allowed.join(', ')}`;
}

function nameLengthProblem(fileName: string): string | null {
  return fileName.length > MAX_FILE_NAME ? `${fileName.slice(0, 40)}… is a file name of ${fileName.length} characters; at most ${MAX_FILE_NAME}` : null;
}

/** Why `cpx protect` with these arguments breaks a rule of spec 4.1 / 8, or null when the CLI sees nothing wrong. */
export function protectHint(files: readonly string[], recipients: readonly string[]): string | null {
  const names = files.map((file) => fileNameOf(file, fileSource(file)));
  const problems = [
    ...names.flatMap((name) => extensionProblem(name, EMBED_EXTENSIONS, 'protect') ?? []),
    ...names.flatMap((name) => nameLengthProblem(name) ?? []),
    ...(files.length > MAX_FILES ? [`${files.length} files; at most ${MAX_FILES} per order`] : []),
    ...(recipients.length > MAX_TEXTS ? [`${recipients.length} recipients; at most ${MAX_TEXTS} per file`] : []),
    ...recipients.flatMap((text) =>
      text.length === 0 ? ['an empty --recipient; each needs 1 to 1,000 characters'] : text.length > MAX_TEXT_LENGTH ? [`a --recipient of ${text.length} characters; at most 1,000`] : [],
    ),
  ];
  return problems.length > 0 ? problems.join('\n') : null;
}

/** Why `cpx trace` with these files breaks a rule of spec 4.2 / 8, or null when the CLI sees nothing wrong. */
export function traceHint(original: string, suspect: string): string | null {
  const originalName = fileNameOf(original);
  const suspectName = fileNameOf(suspect);
  const originalProblem = extensionProblem(originalName, [...INSPECTABLE_AGAINST_IMAGE, 'pdf'], 'an original (--original)');
  // The suspect's rule depends on the original's kind; with an unknown original only the original is the problem.
  const suspectProblem =
    originalProblem === null
      ? extensionOf(originalName) === 'pdf'
        ? extensionProblem(suspectName, INSPECTABLE_AGAINST_PDF, 'the file to check against a PDF original')
        : extensionProblem(suspectName, INSPECTABLE_AGAINST_IMAGE, 'the file to check against an image original')
      : null;
  const problems = [originalProblem, suspectProblem, nameLengthProblem(originalName), nameLengthProblem(suspectName)].flatMap((problem) => problem ?? []);
  return problems.length > 0 ? problems.join('\n') : null;
}

/**
 * How a failure is printed on stderr. The SDK's message of an API refusal is already "CODE (HTTP status)", so the
 * code is not put in front of it again; the hint is added only to a refusal by the API (it has an HTTP status) of
 * a request the CLI found a broken rule in (VALIDATION_FAILED).
 */
export function errorOutput(error: unknown, hint: string | null, json: boolean): string {
  const code = error instanceof ContentProtectionError || error instanceof WebhookVerificationError ? error.code : 'UNEXPECTED';
  const message = error instanceof Error ? error.message : String(error);
  const status = error instanceof ContentProtectionError ? error.status : undefined;
  const shownHint = hint !== null && code === 'VALIDATION_FAILED' && status !== undefined ? hint : null;
  if (json) {
    return `${JSON.stringify({ error: { code, message, ...(status !== undefined ? { status } : {}), ...(shownHint !== null ? { hint: shownHint } : {}) } })}\n`;
  }
  const head = message.startsWith(code) ? message : `${code}: ${message}`;
  const hintLines = shownHint === null ? '' : shownHint.split('\n').map((line) => `hint: ${line}\n`).join('');
  return `error: ${head}\n${hintLines}`;
}

/** Object keys carry the account and order ids, so an order's objects share one prefix. */
/**
 * Longest last segment of an object key, in UTF-8 bytes. MinIO keeps each segment of a key as a directory name
 * and refuses a longer one (255 bytes, the file systems' limit), so a file name within the API's 255 characters
 * but over 255 bytes (126 emoji and `.png`: 508 bytes) was given an upload URL whose every PUT failed. The local
 * stand-in (s3rver) adds 15 bytes of its own to the name on disk, so there a segment over 240 bytes fails too.
 */
export const OBJECT_NAME_MAX_BYTES = 255;

const UTF8 = new TextEncoder();
const utf8Length = (text: string): number => UTF8.encode(text).length;

/**
 * The last segment of an object key for a client's file name: separators and control characters replaced. A
 * name whose segment fits `OBJECT_NAME_MAX_BYTES` keeps the form keys always had (objects stored before stay
 * where the services look for them); a longer one is cut at a character boundary before its extension, which it
 * keeps. The key's folder (the file's id) keeps it unique; the download name comes from the order, not the key.
 */
export function safeObjectName(fileName: string): string {
  const cleaned = fileName.replace(/[/\\\u0000-\u001f\u007f]/g, '_');
  const name = cleaned.slice(0, 255) || 'file';
  if (utf8Length(name) <= OBJECT_NAME_MAX_BYTES) {
    return name;
  }
  const { base, extension } = splitExtension(cleaned);
  const tail = extension && utf8Length(extension) <= 16 ? `.${extension}` : '';
  let kept = '';
  let bytes = utf8Length(tail);
  for (const character of base) {
    const length = utf8Length(character);
    if (bytes + length > OBJECT_NAME_MAX_BYTES) {
      break;
    }
    kept += character;
    bytes += length;
  }
  return `${kept || 'file'}${tail}`;
}

export const ObjectKeys = {
  /** Every object of an account: its orders' prefixes all start with it (an account's erasure deletes it whole). */
  accountPrefix: (accountId: string): string => `${accountId}/`,
  orderPrefix: (accountId: string, orderId: string): string => `${accountId}/${orderId}/`,
  input: (accountId: string, orderId: string, fileId: string, fileName: string): string =>
    `${accountId}/${orderId}/inputs/${fileId}/${safeObjectName(fileName)}`,
  output: (accountId: string, orderId: string, outputFileId: string, fileName: string): string =>
    `${accountId}/${orderId}/outputs/${outputFileId}/${safeObjectName(fileName)}`,
  package: (accountId: string, orderId: string): string => `${accountId}/${orderId}/${orderId}-watermarked.zip`,
};

/** An input's or output's key, or a URL path ending with one (repeated slashes and any case, as a client may send it). */
const NAMED_OBJECT_KEY = /((?:^|\/+)(?:inputs|outputs)\/+[^/]+\/+)[^/]+$/i;

/**
 * An object key (or a path ending with one) as logs, traces and attempt records may keep it: an input's or output's
 * last segment is the client's file name, often a person's name (personal data kept as long as the log store keeps
 * lines, past the order's expiry), so it becomes `[name]`; the account, order and file ids before it still find the
 * object.
 */
export function loggedObjectKey(key: string): string {
  return key.replace(NAMED_OBJECT_KEY, '$1[name]');
}

export function splitExtension(fileName: string): { base: string; extension: string } {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? { base: fileName.slice(0, dot), extension: fileName.slice(dot + 1) } : { base: fileName, extension: '' };
}

/** Spec 4.4 rule 2: `<original name>-watermarked-<output fileId>.<extension>` */
export function outputFileName(inputFileName: string, outputFileId: string): string {
  const { base, extension } = splitExtension(inputFileName);
  return `${base}-watermarked-${outputFileId}${extension ? `.${extension}` : ''}`;
}

/** Spec 4.4 rule 1 */
export function packageFileName(orderId: string): string {
  return `${orderId}-watermarked.zip`;
}

/** Object keys carry the account and order ids, so an order's objects share one prefix. */
export function safeObjectName(fileName: string): string {
  return fileName.replace(/[/\\\u0000-\u001f\u007f]/g, '_').slice(0, 255) || 'file';
}

export const ObjectKeys = {
  orderPrefix: (accountId: string, orderId: string): string => `${accountId}/${orderId}/`,
  input: (accountId: string, orderId: string, fileId: string, fileName: string): string =>
    `${accountId}/${orderId}/inputs/${fileId}/${safeObjectName(fileName)}`,
  output: (accountId: string, orderId: string, outputFileId: string, fileName: string): string =>
    `${accountId}/${orderId}/outputs/${outputFileId}/${safeObjectName(fileName)}`,
  package: (accountId: string, orderId: string): string => `${accountId}/${orderId}/${orderId}-watermarked.zip`,
};

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

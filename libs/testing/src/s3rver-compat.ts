import type S3rver from 's3rver';

/**
 * s3rver lacks ListMultipartUploads, which the minio client asks before every streamed (multipart) upload
 * to resume an earlier one: answer "none", so uploads of unknown length (ZIP packages) work as with MinIO.
 * Every local stand-in for MinIO (the stack's S3 server, the chart boot test, integration tests) installs it.
 */
export function acceptStreamedUploads(server: S3rver): void {
  server.middleware.unshift(async (context, next) => {
    const bucket = /^\/([^/?]+)\/?$/.exec(context.path)?.[1];
    if (context.method === 'GET' && bucket && 'uploads' in context.query) {
      context.type = 'application/xml';
      context.body =
        '<?xml version="1.0" encoding="UTF-8"?>' +
        `<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Bucket>${bucket}</Bucket>` +
        '<KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>' +
        '</ListMultipartUploadsResult>';
      return;
    }
    await next();
  });
}

import type S3rver from 's3rver';
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Every shim below: what the services rely on from MinIO, on a local s3rver (the stack's, the chart test's, the tests'). */
export function behaveLikeMinio(server: S3rver): void {
  acceptStreamedUploads(server);
  atomicObjectWrites(server);
}

/**
 * A PUT replaces an object whole or not at all, as on MinIO and S3. s3rver writes the body straight into the
 * object's file: a GET during a PUT of the same key read an empty file, and a PUT the client abandoned left one
 * behind (the chaos suite's S3 freeze: a client's retried upload of the same bytes, replayed when the server woke,
 * emptied an input a processor was about to read; the order failed with "empty input"). Here the body goes to a
 * file of its own, renamed over the object when it is complete; an abandoned body is deleted and the object kept.
 */
function atomicObjectWrites(server: S3rver): void {
  const store = server.store;
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const partial = `${objectPath}.${randomUUID()}.partial`;
    const md5 = createHash('md5');
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    try {
      await pipeline(Buffer.isBuffer(object.content) ? [object.content] : object.content, measure, createWriteStream(partial));
      await rename(partial, objectPath);
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}

/**
 * s3rver lacks ListMultipartUploads, which the minio client asks before every streamed (multipart) upload
 * to resume an earlier one: answer "none", so uploads of unknown length (ZIP packages) work as with MinIO.
 */
function acceptStreamedUploads(server: S3rver): void {
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

// Issue 29: no remote call (RPC, HTTP, object storage, e-mail) is awaited while a database transaction holds its
// row locks and pool connection. Every file of the orders service that opens a transaction is checked for the
// clients that make such calls; the transactions' work is repository and domain code only. (The consumers'
// handlers run in `context.transaction` and only call use cases that take the transaction: checked the same way.)
import { sourceFiles } from '@cp/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SOURCE = __dirname;
/** What opens a transaction in this service. */
const OPENS_TRANSACTION = /\.transaction\(|transactions\.run\(/;
/** Clients and calls that leave the process. */
const REMOTE = /\bRpcClient\b|\bUploadsClient\b|\bObjectStorage\b|\bStorageService\b|\bfetch\(|\.request\(|nodemailer|\bhttps?\.request\b/;

describe('no remote call inside a transaction (orders)', () => {
  const transactional = sourceFiles(SOURCE).filter((file) => OPENS_TRANSACTION.test(readFileSync(file, 'utf8')));

  it('finds the files that open transactions', () => {
    expect(transactional.map((file) => path.relative(SOURCE, file))).toEqual(
      expect.arrayContaining(['stuck-orders/fail-stuck-orders.use-case.ts', 'expiry/expire-orders.use-case.ts', 'upload-window/expire-upload-window.use-case.ts']),
    );
  });

  it('none of them uses a client that calls out of the process', () => {
    const offending = transactional.filter((file) => REMOTE.test(readFileSync(file, 'utf8'))).map((file) => path.relative(SOURCE, file));
    expect(offending).toEqual([]);
  });
});

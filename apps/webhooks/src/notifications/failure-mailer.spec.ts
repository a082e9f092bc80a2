import { ManualClock } from '@cp/clock';
import { Logger } from '@nestjs/common';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import { FailureMailer, withTimeouts } from './failure-mailer';

describe('FailureMailer over SMTP', () => {
  let server: Server;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    // An SMTP server that accepts the connection and never says hello.
    server = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    sockets.forEach((socket) => socket.destroy());
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('gives up on a server that never greets after its configured timeout (nodemailer alone would wait 30 s)', async () => {
    const { port } = server.address() as AddressInfo;
    const mailer = new FailureMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, timeoutMs: 600, from: 'a@example.com', outboxDir: '/nonexistent' }, new ManualClock(new Date()));
    await expect(mailer.send({ to: 'owner@example.com', subject: 's', text: 't' })).rejects.toMatchObject({ code: 'ETIMEDOUT' });
  }, 10_000);
});

describe('withTimeouts', () => {
  it('adds every limit to the SMTP URL and keeps one the operator wrote there', () => {
    const url = new URL(withTimeouts('smtps://user%40x:p%3Ass@mail.example.com:465/?socketTimeout=30000', 5000));
    expect(Object.fromEntries(url.searchParams)).toEqual({ socketTimeout: '30000', connectionTimeout: '5000', greetingTimeout: '5000', dnsTimeout: '5000' });
    expect([url.username, url.password, url.host]).toEqual(['user%40x', 'p%3Ass', 'mail.example.com:465']);
  });
});

describe('FailureMailer to the local outbox', () => {
  afterEach(() => jest.restoreAllMocks());

  it("writes the .eml but never logs the account owner's e-mail address (personal data in logs)", async () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const outboxDir = await mkdtemp(path.join(tmpdir(), 'cp-mail-'));
    try {
      const mailer = new FailureMailer({ smtpUrl: undefined, timeoutMs: 600, from: 'noreply@example.com', outboxDir }, new ManualClock(new Date()));
      await mailer.send({ to: 'owner@example.com', subject: 's', text: 't' });
      expect(await readdir(outboxDir)).toHaveLength(1);
      expect(log).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(log.mock.calls)).not.toContain('owner@example.com');
    } finally {
      await rm(outboxDir, { recursive: true, force: true });
    }
  });
});

// An erasure's discard of parked messages against the real NATS JetStream (stream PARKED): the messages naming the
// erased account (or order) go, by their sequence; another account's and a parked erasure event stay.
import { EventSubjects, PARKED_SUBJECT_PREFIX, Streams } from '@cp/contracts';
import { ParkedHeaders } from './event-consumer';
import { ensureStreams } from './jetstream-setup';
import { testInfra, uniqueName } from '@cp/testing';
import { connect, headers as natsHeaders, JetStreamManager, NatsConnection } from 'nats';
import { ParkedMessages } from './parked-messages';

describe('ParkedMessages.discardNaming (real NATS)', () => {
  const durable = uniqueName('itpe');
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let parked: ParkedMessages;
  // Account ids no other spec uses: PARKED is one stream for the whole NATS server.
  const account = String(900_000 + Math.floor(Math.random() * 90_000));

  async function park(subject: string, data: object): Promise<number> {
    const headers = natsHeaders();
    headers.set(ParkedHeaders.subject, subject);
    headers.set(ParkedHeaders.durable, durable);
    headers.set(ParkedHeaders.reason, 'a test message');
    const ack = await nc.jetstream().publish(`${PARKED_SUBJECT_PREFIX}.${durable}`, new TextEncoder().encode(JSON.stringify({ eventId: 'e', subject, occurredAt: '', data })), { headers });
    return ack.seq;
  }

  const seqs = (lists: Array<Array<{ seq: number }>>): number[][] => lists.map((list) => list.map((message) => message.seq));
  const left = async (): Promise<number[]> => (await parked.list(durable)).map((message) => message.seq);

  beforeAll(async () => {
    nc = await connect({ servers: testInfra.natsUrl });
    jsm = await nc.jetstreamManager();
    await ensureStreams(jsm, [Streams.parked]);
    parked = new ParkedMessages(nc.jetstream(), jsm);
  });

  afterAll(async () => {
    await jsm.streams.purge(Streams.parked.name, { filter: `${PARKED_SUBJECT_PREFIX}.${durable}` });
    await nc.drain();
  });

  it("discards the order's then the account's parked jobs, never another account's nor an erasure event", async () => {
    const orderJob = await park('job.watermark.embed', { accountId: account, orderId: '71', text: 'Jane Doe', input: { key: `${account}/71/inputs/1/Jane Doe.png` } });
    const packageJob = await park('job.watermark.package', { orderId: '72', entries: [{ key: `${account}/72/outputs/1-1/John Doe.png` }] });
    const other = await park('job.watermark.embed', { accountId: `${account}0`, orderId: '73', text: 'Jane Roe' });
    const erasure = await park(EventSubjects.accountErasureRequested, { erasureId: '00000000-0000-4000-8000-000000000009', accountId: account });

    expect(seqs(await parked.discardNaming([{ accountId: account, orderId: '71' }]))).toEqual([[orderJob]]);
    expect(await left()).toEqual([packageJob, other, erasure]);
    expect(seqs(await parked.discardNaming([{ accountId: account }]))).toEqual([[packageJob]]);
    expect(await left()).toEqual([other, erasure]);
    expect(seqs(await parked.discardNaming([{ accountId: account }]))).toEqual([[]]);
    expect(await parked.discardNaming([])).toEqual([]);
  });

  it('reads PARKED once for several scopes: each lists what names it, a message naming two is in both, the rest stay', async () => {
    const second = `${account}1`;
    const third = `${account}2`;
    const ofFirst = await park('job.watermark.embed', { accountId: account, orderId: '81', text: 'Jane Doe' });
    const ofSecondOrder = await park('job.watermark.embed', { accountId: second, orderId: '82', text: 'John Doe' });
    const ofBoth = await park('job.watermark.package', { orderId: '83', entries: [{ key: `${account}/83/outputs/1-1/a.png` }, { key: `${second}/84/outputs/1-1/b.png` }] });
    const ofThird = await park('job.watermark.embed', { accountId: third, orderId: '85', text: 'Jane Roe' });
    const before = await left();

    const lists = seqs(await parked.discardNaming([{ accountId: account }, { accountId: second, orderId: '82' }, { accountId: second }]));

    expect(lists).toEqual([[ofFirst, ofBoth], [ofSecondOrder], [ofSecondOrder, ofBoth]]);
    expect(await left()).toEqual(before.filter((seq) => ![ofFirst, ofSecondOrder, ofBoth].includes(seq)));
    expect(await left()).toContain(ofThird);
  });

  it('reads past one fetch batch, and two discards side by side (two replicas, or an operator beside retention) each finish', async () => {
    const many = `${account}3`;
    const parkedSeqs: number[] = [];
    for (let i = 0; i < 300; i += 1) {
      parkedSeqs.push(await park('job.watermark.embed', { accountId: many, orderId: String(1000 + i), text: 'Jane Doe' }));
    }
    const kept = await park('job.watermark.embed', { accountId: `${many}0`, orderId: '999', text: 'John Doe' });
    const notJson = (await nc.jetstream().publish(`${PARKED_SUBJECT_PREFIX}.${durable}`, new TextEncoder().encode(`{"accountId":"${many}"`))).seq;

    const [first, second] = await Promise.all([parked.discardNaming([{ accountId: many }]), parked.discardNaming([{ accountId: many }])]);

    expect([...new Set([...seqs(first)[0], ...seqs(second)[0]])].sort((a, b) => a - b)).toEqual(parkedSeqs);
    expect(await left()).toEqual(expect.arrayContaining([kept, notJson]));
    expect((await left()).filter((seq) => parkedSeqs.includes(seq))).toEqual([]);
  });
});

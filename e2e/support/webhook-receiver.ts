// A real HTTP receiver on 127.0.0.1 for webhook e2e tests: keeps the raw bytes and headers of every
// request and answers as the test says (a status code, or never).
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  /** Date.now() when the body was complete. */
  receivedAt: number;
  /** Date.now() when a request left hanging ended: the sender gave up on it (its timeout), or the receiver stopped. */
  endedAt?: number;
}

/** Status to answer with, or 'hang' to never answer. `attempt` counts from 1 per receiver. */
export type ReceiverBehaviour = (attempt: number, request: ReceivedRequest) => number | 'hang';

export class WebhookReceiver {
  readonly received: ReceivedRequest[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    private behaviour: ReceiverBehaviour,
  ) {}

  static async start(behaviour: ReceiverBehaviour = () => 200): Promise<WebhookReceiver> {
    const server = createServer();
    const receiver = new WebhookReceiver(server, behaviour);
    server.on('connection', (socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (request: IncomingMessage, response: ServerResponse) => receiver.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  respond(behaviour: ReceiverBehaviour): void {
    this.behaviour = behaviour;
  }

  /** Requests whose JSON body has this `eventId`. */
  forEvent(eventId: string): ReceivedRequest[] {
    return this.received.filter((request) => (JSON.parse(request.rawBody.toString('utf8')) as { eventId?: string }).eventId === eventId);
  }

  async stop(): Promise<void> {
    for (const response of this.hanging) {
      response.destroy();
    }
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise((resolve) => this.server.close(resolve));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        rawBody: Buffer.concat(chunks),
        receivedAt: Date.now(),
      };
      this.received.push(received);
      const answer = this.behaviour(this.received.length, received);
      if (answer === 'hang') {
        this.hanging.add(response);
        response.on('close', () => {
          received.endedAt = Date.now();
          this.hanging.delete(response);
        });
        return;
      }
      response.writeHead(answer, { 'Content-Type': 'text/plain' }).end('ok');
    });
  }
}

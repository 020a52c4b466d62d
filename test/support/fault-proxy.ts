import { createServer, Socket, type Server } from 'node:net';

/**
 * A TCP proxy in front of a real server that can lose one reply: once armed with a marker, the first
 * request containing it is forwarded, the server executes it, and the connection is cut the moment the
 * reply arrives, before the client sees it. That is the ambiguous failure a retry must survive: the write
 * happened, the client cannot know.
 */
export class FaultProxy {
  readonly #targetPort: number;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #marker: Buffer | undefined;
  #armed = false;
  #replyComplete: (reply: Buffer) => boolean = () => true;
  /** Replies cut so far. */
  dropped = 0;
  /** Requests containing the marker forwarded to the server (the original and its re-sends). */
  markedRequests = 0;

  private constructor(targetPort: number) {
    this.#targetPort = targetPort;
    this.#server = createServer((client) => this.#pipe(client));
  }

  /** Start a proxy to 127.0.0.1:`targetPort`; resolves with it once it listens. */
  static async start(targetPort: number): Promise<FaultProxy & { port: number }> {
    const proxy = new FaultProxy(targetPort);
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    const address = proxy.#server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy has no port');
    return Object.assign(proxy, { port: address.port });
  }

  /**
   * Lose the reply to the next request containing `marker`. `replyComplete` says when the reply (as bytes
   * received so far) proves the server finished the request (default: any byte).
   */
  dropReplyTo(marker: string, replyComplete: (reply: Buffer) => boolean = () => true): void {
    this.#marker = Buffer.from(marker);
    this.#replyComplete = replyComplete;
    this.#armed = true;
    this.markedRequests = 0;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #pipe(client: Socket): void {
    const upstream = new Socket();
    this.#sockets.add(client).add(upstream);
    let doomed = false;
    let reply = Buffer.alloc(0);
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    upstream.connect(this.#targetPort, '127.0.0.1');
    client.on('data', (data: Buffer) => {
      const marker = this.#marker;
      if (marker !== undefined && data.includes(marker)) {
        this.markedRequests += 1;
        if (!doomed && this.#armed) {
          this.#armed = false;
          doomed = true;
          reply = Buffer.alloc(0);
        }
      }
      upstream.write(data);
    });
    upstream.on('data', (data: Buffer) => {
      if (!doomed) return void client.write(data);
      reply = Buffer.concat([reply, data]);
      if (!this.#replyComplete(reply)) return;
      this.dropped += 1;
      cut();
    });
    for (const socket of [client, upstream]) {
      socket.on('error', cut);
      socket.on('close', () => {
        this.#sockets.delete(socket);
        cut();
      });
    }
  }
}

/** True once a Postgres reply holds ReadyForQuery ('Z', length 5, status byte): the statement and its commit are done. */
export function postgresReplyComplete(reply: Buffer): boolean {
  for (let index = reply.length - 6; index >= 0; index -= 1) {
    if (reply[index] === 0x5a && reply.readInt32BE(index + 1) === 5) return true;
  }
  return false;
}

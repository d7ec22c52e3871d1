// One worker thread that answers a process's requests one at a time, in order: for work that would hold the
// event loop (password hashes, segment compression) and must not take libuv's pool, where DuckDB's node API
// runs. The thread is an eval'd CommonJS script (it runs the same under tsx and from dist) that answers each
// message `{ id, ... }` with `{ id, ... }`. It is referenced only while a request is under way, so an idle
// thread never keeps the process alive; a thread that fails fails what waits, and the next request starts another.
import { Worker, type TransferListItem } from 'node:worker_threads';

interface Pending<R> {
  resolve: (reply: R) => void;
  reject: (err: Error) => void;
}

export class ThreadQueue<Request extends object, Reply extends object> {
  private thread: Worker | undefined;
  private readonly pending = new Map<number, Pending<Reply>>();
  private nextId = 0;

  constructor(
    private readonly name: string,
    private readonly source: string,
    private readonly workerData: unknown,
  ) {}

  /** Requests waiting or under way. */
  get size(): number {
    return this.pending.size;
  }

  /** The thread's reply to `request` (its `id` set here); `transfer` hands buffers over instead of copying them. */
  request(request: Request, transfer: readonly TransferListItem[] = []): Promise<Reply> {
    this.thread ??= this.start();
    const target = this.thread;
    const id = this.nextId++;
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) target.ref();
      target.postMessage({ ...request, id }, [...transfer]);
    });
  }

  /** Ends the thread (a later request starts another). */
  async stop(): Promise<void> {
    const t = this.thread;
    this.thread = undefined;
    if (t) await t.terminate();
  }

  private start(): Worker {
    const started = new Worker(this.source, { eval: true, workerData: this.workerData });
    started.on('message', (reply: Reply & { id: number }) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) started.unref();
      waiting.resolve(reply);
    });
    const fail = (err: Error) => {
      if (this.thread === started) this.thread = undefined;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    started.on('error', fail);
    started.on('exit', (code) => fail(new Error(`${this.name} thread exited with code ${code}`)));
    return started;
  }
}

/** The part of Node's `child_process` this uses (the plugin has no Node types). */
interface ChildProcess {
  stdin: { write(data: string, done: (error?: Error | null) => void): void; end(): void };
  stdout: Readable;
  stderr: Readable;
  once(event: "spawn", listener: () => void): void;
  once(event: "error", listener: (error: Error) => void): void;
  on(event: "close", listener: () => void): void;
  kill(): void;
}

interface Readable {
  setEncoding(encoding: "utf8"): void;
  on(event: "data", listener: (chunk: string) => void): void;
}

type Spawn = (command: string, args: string[], options: { env: Record<string, string | undefined>; stdio: "pipe" }) => ChildProcess;

/** Node's `child_process.spawn`, from the desktop app's `require` (absent on mobile). */
function nodeSpawn(): Spawn {
  const nodeRequire = (window as { require?: (id: string) => unknown }).require;
  if (!nodeRequire) throw new Error("commands run on desktop only");
  return (nodeRequire("child_process") as { spawn: Spawn }).spawn;
}

function environment(): Record<string, string | undefined> {
  return (window as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
}

/**
 * Child processes for MCP servers that are commands (`VaultHost.processStart` and friends), on
 * the desktop app only: Node's `child_process` is loaded the first time a process starts, never
 * on mobile. Lines of stdout queue until the core reads them; stderr goes to the console.
 */
export class Processes {
  private readonly running = new Map<number, Running>();
  private nextId = 1;

  start(command: string, args: string[], env: Record<string, string>): Promise<number> {
    const child = nodeSpawn()(command, args, { env: { ...environment(), ...env }, stdio: "pipe" });
    const id = this.nextId++;
    this.running.set(id, new Running(child, command));
    return new Promise((resolve, reject) => {
      child.once("spawn", () => resolve(id));
      child.once("error", (error) => {
        this.running.delete(id);
        reject(new Error(`cannot start ${command}: ${error.message}`));
      });
    });
  }

  send(id: number, line: string): Promise<void> {
    const process = this.get(id);
    return new Promise((resolve, reject) =>
      process.child.stdin.write(`${line}\n`, (error) => (error ? reject(error) : resolve())),
    );
  }

  read(id: number): Promise<string | null> {
    return this.get(id).next();
  }

  close(id: number): Promise<void> {
    const process = this.running.get(id);
    this.running.delete(id);
    process?.stop();
    return Promise.resolve();
  }

  /** Ends every process (the plugin unloads). */
  closeAll(): void {
    for (const id of [...this.running.keys()]) void this.close(id);
  }

  private get(id: number): Running {
    const process = this.running.get(id);
    if (!process) throw new Error(`process ${id} has ended`);
    return process;
  }
}

/** One child and its stdout, split into lines. */
class Running {
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string | null) => void)[] = [];
  private partial = "";
  private ended = false;

  constructor(
    readonly child: ChildProcess,
    command: string,
  ) {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const parts = (this.partial + chunk).split("\n");
      this.partial = parts.pop() ?? "";
      for (const line of parts) this.push(line.replace(/\r$/, ""));
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => console.debug(`Vault Agent: MCP server ${command}:`, chunk.trimEnd()));
    child.on("close", () => {
      this.ended = true;
      for (const resolve of this.waiting.splice(0)) resolve(null);
    });
  }

  next(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  stop(): void {
    this.child.stdin.end();
    // A server that does not exit when its stdin closes is ended.
    window.setTimeout(() => {
      if (!this.ended) this.child.kill();
    }, 2000);
  }

  private push(line: string): void {
    const resolve = this.waiting.shift();
    if (resolve) resolve(line);
    else this.lines.push(line);
  }
}

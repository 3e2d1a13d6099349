// The fuzzed gateway's heap after forced collections, so that a property can tell what its cases
// left behind from garbage not yet collected: this process's own when the gateway runs in it,
// or, under bench/fuzz (FUZZ_INSPECTOR_URL), the server process's through its inspector
// (node --inspect on loopback: HeapProfiler.collectGarbage, then process.memoryUsage()).
import { WebSocket } from "undici";
import { settledHeap } from "../helpers/heap.js";

const inspector = process.env.FUZZ_INSPECTOR_URL;

/** One call on the inspector's protocol (Chrome DevTools Protocol) of the server's main thread. */
async function inspect<T>(calls: Array<{ method: string; params?: Record<string, unknown> }>): Promise<T> {
  const targets = (await (await fetch(`${inspector}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target at ${inspector}`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  try {
    let last: unknown;
    for (const [index, call] of calls.entries()) {
      last = await new Promise((resolve, reject) => {
        const onMessage = (event: { data: unknown }) => {
          const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
          if (message.id !== index + 1) return;
          socket.removeEventListener("message", onMessage);
          if (message.error) reject(new Error(JSON.stringify(message.error)));
          else resolve(message.result);
        };
        socket.addEventListener("message", onMessage);
        socket.send(JSON.stringify({ id: index + 1, ...call }));
      });
    }
    return last as T;
  } finally {
    socket.close();
  }
}

/** heapUsed of the gateway after full collections. */
export async function gatewayHeap(): Promise<number> {
  if (!inspector) return settledHeap();
  const collect = { method: "HeapProfiler.collectGarbage" };
  const result = await inspect<{ result: { value: number } }>([
    collect,
    collect,
    { method: "Runtime.evaluate", params: { expression: "process.memoryUsage().heapUsed", returnByValue: true } },
  ]);
  return result.result.value;
}

// A TCP proxy that holds every chunk N ms in each direction, for a database on "another machine"
// (bench/lib.mjs, delayProxy). Prints the port it listens on. Usage: node bench/delay-proxy.mjs URL MS
import net from "node:net";

const target = new URL(process.argv[2]);
const ms = Number(process.argv[3]);
const relay = (from, to) => from.on("data", (chunk) => setTimeout(() => to.write(chunk), ms));
const server = net.createServer((client) => {
  client.setNoDelay(true);
  const upstream = net.connect(Number(target.port || 5432), target.hostname);
  upstream.setNoDelay(true);
  relay(client, upstream);
  relay(upstream, client);
  // After the chunks in flight: the last answer arrives before the close.
  const close = () =>
    setTimeout(() => {
      client.destroy();
      upstream.destroy();
    }, ms + 1);
  client.on("close", close).on("error", close);
  upstream.on("close", close).on("error", close);
});
server.listen(0, "127.0.0.1", () => console.log(server.address().port));

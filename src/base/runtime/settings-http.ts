// The console's public address and the HTTP port's limits on connections and on how long a
// request may take to arrive, in the shape of settings.ts, which lists them after PORT, HOST and
// TRUST_PROXY.
import { httpUrl, type SettingSpec, wholeNumber } from "./config-values.js";

export const HTTP_SETTINGS = {
  PUBLIC_URL: {
    field: "publicUrl",
    description:
      "Public base URL of the console as its users reach it, e.g. https://console.example.com: the links the gateway mails (a user's or staff member's invitation) start with it. Unset: a link is built only for a request made to a loopback address or to HOST itself; any other Host header is refused, since the client writes it. Set it behind a reverse proxy. See docs/deployment.md.",
    parser: httpUrl,
  },
  HTTP_CONNECTIONS_PER_ADDRESS: {
    field: "http.connectionsPerAddress",
    description:
      "HTTP connections from one client address that may be open at once; the next one from that address is closed at once, with nothing sent. Loopback counts like any address (a load test with many connections from 127.0.0.1 needs no more than the default); behind a reverse proxy the proxy's address is the one counted, so set it above the proxy's connection pool.",
    default: "1000",
    parser: wholeNumber(1, 1000000),
  },
  HTTP_CONNECTIONS_MAX: {
    field: "http.connectionsMax",
    description:
      "HTTP connections from all addresses that may be open at once (Node's server.maxConnections); the next one is closed at once. Keep it below the process's open-file limit (ulimit -n, LimitNOFILE), which the database, SMPP and the other connections share.",
    default: "10000",
    parser: wholeNumber(1, 10000000),
  },
  HTTP_REQUEST_TIMEOUT_SECONDS: {
    field: "http.requestTimeoutSeconds",
    description:
      "Seconds a client has to send a whole HTTP request, headers and body; then it is answered 408 and the connection closed. A slow client holds a connection no longer.",
    default: "60",
    parser: wholeNumber(1, 3600),
  },
  HTTP_HEADERS_TIMEOUT_SECONDS: {
    field: "http.headersTimeoutSeconds",
    description:
      "Seconds a client has to send an HTTP request's headers; then it is answered 408 and the connection closed. At most HTTP_REQUEST_TIMEOUT_SECONDS (a larger value is taken as that).",
    default: "20",
    parser: wholeNumber(1, 3600),
  },
} as const satisfies Record<string, SettingSpec>;

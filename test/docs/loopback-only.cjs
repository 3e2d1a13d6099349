// Preloaded (NODE_OPTIONS=--require) into the gateway and the CLI that the documentation
// examples run: the examples name real-looking hosts (hooks.example.com, smsc.example.in),
// and nothing may leave this machine. A name other than localhost does not resolve, and a
// connection to an address outside 127.0.0.0/8 and ::1 is refused, as on a machine offline.
"use strict";
const dns = require("node:dns");
const net = require("node:net");

const LOCAL_NAMES = new Set(["localhost", "localhost.localdomain"]);

function isLoopback(address) {
  return address === "::1" || /^127\./.test(address) || address === "::ffff:127.0.0.1";
}

function notFound(hostname) {
  const error = new Error(`getaddrinfo ENOTFOUND ${hostname} (documentation examples run offline)`);
  error.code = "ENOTFOUND";
  error.hostname = hostname;
  return error;
}

const lookup = dns.lookup;
dns.lookup = function lookupLoopbackOnly(hostname, options, callback) {
  const done = typeof options === "function" ? options : callback;
  if (net.isIP(hostname) || LOCAL_NAMES.has(String(hostname).toLowerCase())) {
    return lookup.call(this, hostname, options, callback);
  }
  process.nextTick(() => done(notFound(hostname)));
  return {};
};
const promisesLookup = dns.promises.lookup;
dns.promises.lookup = async function lookupLoopbackOnly(hostname, options) {
  if (net.isIP(hostname) || LOCAL_NAMES.has(String(hostname).toLowerCase())) {
    return promisesLookup.call(this, hostname, options);
  }
  throw notFound(hostname);
};

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function connectLoopbackOnly(...args) {
  const options =
    typeof args[0] === "object" && args[0] !== null
      ? Array.isArray(args[0])
        ? args[0][0]
        : args[0]
      : { host: args[1] };
  const host = options?.host;
  if (typeof host === "string" && net.isIP(host) && !isLoopback(host)) {
    const error = new Error(`connect ECONNREFUSED ${host} (documentation examples run offline)`);
    error.code = "ECONNREFUSED";
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};
require("node:module").syncBuiltinESMExports();

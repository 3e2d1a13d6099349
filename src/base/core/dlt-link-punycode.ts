// Top-level domains written in punycode (`evil.xn--p1ai`, `xn--e1afmkfd.xn--p1ai/x`) for the
// DLT link rule (audit S1). linkifyjs knows IDN TLDs only in Unicode (`рф`), so a host whose TLD
// is written in ASCII was not found at all, and went unchecked; phones link it (Android's
// AUTOLINK_WEB_URL takes any `xn--…` TLD) and browsers open it. linkify has no TLD option, so a
// token plugin teaches its scanner that `xn--` and letters, digits and inner hyphens are a TLD,
// as Android's pattern does (any such label, not only the delegated ones: a refusal too many is
// safer than a link let through). Labels that are not valid punycode are refused by the host
// check (dlt-links.ts) as links whose host cannot be read.
import * as linkify from "linkifyjs";

const LABEL_CHARACTER = /[a-z0-9]/;

/** Registers the plugin; linkify reads it when it first scans a text (call before that). */
export function findPunycodeTlds(): void {
  linkify.registerTokenPlugin("punycode-tld", ({ scanner }) => {
    const { start, tokens } = scanner;
    // `x` then `n` go where they went (a word, `xbox`, `xin`…), through copies of those states
    // that alone carry the new transitions.
    const xn = start.tt("x").tt("n");
    const label = new linkify.State<string>(tokens.TLD);
    const innerHyphens = new linkify.State<string>();
    xn.tt("-").tt("-").tr(LABEL_CHARACTER, label);
    label.tr(LABEL_CHARACTER, label);
    label.tt("-", innerHyphens);
    innerHyphens.tt("-", innerHyphens);
    innerHyphens.tr(LABEL_CHARACTER, label);
  });
}

// WhatsApp, the service every WhatsApp route uses: the upstreams, Meta's events, the template
// catalog and the send service, built once per gateway; and the demo account's WhatsApp setup.
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import type { WhatsAppConfig } from "../../base/runtime/config.js";
import type { Metrics } from "../../base/runtime/metrics.js";
import type { Store } from "../../base/store/store.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { TemplateCatalog } from "./catalog.js";
import { WhatsAppEvents } from "./events.js";
import { WhatsAppSendService } from "./send.js";
import { updateWhatsAppSettings } from "./settings.js";
import { CloudUpstream, SimulatedUpstream, type Upstreams } from "./upstream.js";

export interface WhatsAppDeps {
  store: Store;
  clock: Clock;
  logger: Logger;
  metrics: Metrics;
  webhooks: WebhookOutbox;
  config: WhatsAppConfig;
  /** A sub-account's message is held and charged at every level of its tree (resellers); absent: its own wallet only. */
  prices?: Pick<PriceBook, "cardFor">;
  /** SIMULATOR_CAPTURE_FILE: the simulated upstream appends what it is given there too. */
  captureFile?: string | undefined;
}

/** Everything the WhatsApp routes use, built once per gateway. */
export class WhatsApp {
  readonly upstreams: Upstreams;
  readonly events: WhatsAppEvents;
  readonly catalog: TemplateCatalog;
  readonly sends: WhatsAppSendService;

  constructor(readonly deps: WhatsAppDeps) {
    this.events = new WhatsAppEvents({ ...deps, maxKeptStatuses: deps.config.earlyStatusesMax });
    this.upstreams = {
      "whatsapp-cloud": new CloudUpstream({
        baseUrl: deps.config.graphUrl,
        version: deps.config.graphVersion,
        timeoutMs: deps.config.timeoutMs,
      }),
      simulator: new SimulatedUpstream({
        latencyMs: deps.config.simulatorLatencyMs,
        captureFile: deps.captureFile,
        now: () => deps.clock.now().getTime(),
        onStatus: (statuses) =>
          this.events
            .applyStatuses(statuses)
            .catch((error: unknown) =>
              deps.logger.error({ err: error }, "applying simulated WhatsApp statuses failed"),
            ),
      }),
    };
    this.catalog = new TemplateCatalog({
      ...deps,
      upstreams: this.upstreams,
      syncSeconds: deps.config.templateSyncSeconds,
    });
    this.sends = new WhatsAppSendService({
      ...deps,
      upstreams: this.upstreams,
      catalog: this.catalog,
      events: this.events,
    });
  }

  async close(): Promise<void> {
    this.events.close();
    await Promise.all(Object.values(this.upstreams).map((upstream) => upstream.close()));
  }
}

/** The simulated business account the demo is connected to. */
export const DEMO_WHATSAPP = {
  phoneNumberId: "100000000000001",
  displayPhoneNumber: "15550001234",
  wabaId: "200000000000001",
  testNumber: "919876543210",
};

/** First start: connects the demo account to the simulated business account; banner lines. */
export async function setUpWhatsAppDemo(store: Store, clock: Clock, accountId: number): Promise<string[]> {
  await updateWhatsAppSettings(store.db, clock, accountId, {
    enabled: true,
    connector: "simulator",
    phone_number_id: DEMO_WHATSAPP.phoneNumberId,
    display_phone_number: DEMO_WHATSAPP.displayPhoneNumber,
    waba_id: DEMO_WHATSAPP.wabaId,
    access_token: "simulated",
    test_numbers: [DEMO_WHATSAPP.testNumber],
  });
  return [
    `whatsapp:  on, simulated business number +${DEMO_WHATSAPP.displayPhoneNumber}; templates hello_world, otp_code, order_update, ...`,
  ];
}

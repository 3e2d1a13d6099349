// @vitest-environment happy-dom
// The send form's live counter and its DLT template filler, rendered in happy-dom: the counts
// are the gateway's own (src/core/segments.ts), so what the form says is what the send costs.
import { act, useState } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { SmsCounter, TemplateFiller } from "../src/pages/Send.js";
import { countSms, fillTemplate, templateParts } from "../src/sms-counter.js";
import type { Template } from "../src/types.js";
import { byLabel, byTestId, type Rendered, render, type } from "./render.js";

let rendered: Rendered | undefined;
afterEach(() => {
  rendered?.unmount();
  rendered = undefined;
});

describe("countSms", () => {
  it("counts GSM-7 characters, parts and what is left, extension characters twice", () => {
    expect(countSms("")).toMatchObject({ characters: 0, segments: 0, remaining: 160 });
    expect(countSms("a".repeat(160))).toMatchObject({ encoding: "gsm7", segments: 1, remaining: 0, perSegment: 160 });
    expect(countSms("a".repeat(161))).toMatchObject({ segments: 2, perSegment: 153, remaining: 145 });
    expect(countSms("{}")).toMatchObject({ characters: 2, units: 4, segments: 1, remaining: 156 });
    expect(countSms("a".repeat(1530))).toMatchObject({ segments: 10, tooLong: false });
    expect(countSms("a".repeat(1531))).toMatchObject({ segments: 11, tooLong: true });
  });

  it("switches to UCS-2 for characters outside GSM-7 and names them", () => {
    const count = countSms("नमस्ते, hello");
    expect(count).toMatchObject({ encoding: "ucs2", segments: 1, perSegment: 70 });
    expect(count.nonGsm.length).toBeGreaterThan(0);
    expect(countSms("x".repeat(71), false).encoding).toBe("gsm7");
    expect(countSms("x".repeat(71), true)).toMatchObject({ encoding: "ucs2", segments: 2, perSegment: 67 });
    // An emoji is two UTF-16 units but one character.
    expect(countSms("🙂")).toMatchObject({ characters: 1, units: 2, encoding: "ucs2" });
  });
});

describe("DLT templates", () => {
  it("splits a template at its {#var#} slots and fills them in order", () => {
    const content = "Your OTP is {#var#}. Valid for {#var#} minutes.";
    expect(templateParts(content).variables).toBe(2);
    expect(fillTemplate(content, ["482913", "10"])).toBe("Your OTP is 482913. Valid for 10 minutes.");
    expect(fillTemplate(content, ["482913"])).toBe("Your OTP is 482913. Valid for  minutes.");
    expect(fillTemplate("No variables", [])).toBe("No variables");
  });
});

describe("<SmsCounter>", () => {
  it("shows characters, encoding and segments, and warns when the text is too long", async () => {
    rendered = await render(<SmsCounter text="Hello" unicode={false} />);
    expect(byTestId(rendered.container, "counter-characters").textContent).toBe("5 characters");
    expect(byTestId(rendered.container, "counter-encoding").textContent).toBe("GSM-7");
    expect(byTestId(rendered.container, "counter-segments").textContent).toBe("1 segment");
    await act(async () => rendered!.root.render(<SmsCounter text={"€".repeat(1000)} unicode={false} />));
    expect(rendered.container.textContent).toContain("Too long");
    await act(async () => rendered!.root.render(<SmsCounter text="Привет" unicode={false} />));
    expect(byTestId(rendered.container, "counter-encoding").textContent).toBe("UCS-2 (Unicode)");
    expect(byTestId(rendered.container, "counter-non-gsm").textContent).toContain("П");
  });
});

describe("<TemplateFiller>", () => {
  const template: Template = {
    id: 7,
    name: "otp",
    content: "Your code is {#var#} for {#var#}",
    dlt_template_id: "1107160000000000001",
    entity_id: null,
    sender_id: null,
    status: "approved",
    notes: null,
    rejection_reason: null,
    created_at: "2026-11-22T07:53:48Z",
    updated_at: "2026-11-22T07:53:48Z",
  };

  function Harness() {
    const [values, setValues] = useState<string[]>([]);
    return (
      <>
        <TemplateFiller template={template} values={values} onChange={setValues} />
        <output data-testid="filled">{fillTemplate(template.content, values)}</output>
        <SmsCounter text={fillTemplate(template.content, values)} unicode={false} />
      </>
    );
  }

  it("gives each {#var#} a labelled field of up to 30 characters, and the text and counter follow", async () => {
    rendered = await render(<Harness />);
    const first = byLabel(rendered.container, "Variable 1");
    const second = byLabel(rendered.container, "Variable 2");
    expect(first.maxLength).toBe(30);
    await type(first, "482913");
    await type(second, "sign-in");
    expect(byTestId(rendered.container, "filled").textContent).toBe("Your code is 482913 for sign-in");
    expect(byTestId(rendered.container, "counter-characters").textContent).toBe("31 characters");
  });
});

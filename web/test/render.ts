// Rendering components in happy-dom for the console's component tests, and typing into
// React-controlled inputs the way a browser does (the native value setter, then "input").
import { act, type ReactNode } from "react";
import { createRoot, type Root } from "react-dom/client";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Rendered {
  container: HTMLElement;
  root: Root;
  unmount(): void;
}

export async function render(node: ReactNode): Promise<Rendered> {
  const container = document.createElement("div");
  document.body.append(container);
  const root = createRoot(container);
  await act(async () => root.render(node));
  return {
    container,
    root,
    unmount() {
      act(() => root.unmount());
      container.remove();
    },
  };
}

export async function type(input: HTMLInputElement | HTMLTextAreaElement, value: string): Promise<void> {
  const prototype = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
  const setter = Object.getOwnPropertyDescriptor(prototype, "value")?.set;
  await act(async () => {
    setter?.call(input, value);
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });
}

export function byTestId(container: HTMLElement, id: string): HTMLElement {
  const found = container.querySelector<HTMLElement>(`[data-testid="${id}"]`);
  if (!found) throw new Error(`no element with data-testid="${id}"`);
  return found;
}

export function byLabel<T extends HTMLElement = HTMLInputElement>(container: HTMLElement, label: string): T {
  for (const element of container.querySelectorAll("label")) {
    if (element.textContent?.trim() === label) {
      const target = container.querySelector<T>(`#${CSS.escape(element.htmlFor)}`);
      if (target) return target;
    }
  }
  throw new Error(`no field labelled "${label}"`);
}

/** Presses the "Confirm: …" button a money action asks with (confirm-step.tsx), naming `what`. */
export async function confirm(container: HTMLElement, what: string): Promise<void> {
  const button = [...container.querySelectorAll("button")].find((b) => b.textContent?.startsWith("Confirm:"));
  if (!button) throw new Error("no Confirm button");
  if (button.textContent !== `Confirm: ${what}`) throw new Error(`the Confirm button reads "${button.textContent}"`);
  await act(async () => button.click());
}

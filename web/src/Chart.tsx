// A time-series chart with uPlot (small, canvas). The numbers it draws are also given as a
// table for screen readers and keyboard users (the canvas itself is hidden from them).
import { useEffect, useRef, useState } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatClock, formatDay, formatNumber } from "./format.js";

export interface Series {
  label: string;
  values: number[];
  className: string;
  /** A colour, or the name of a CSS variable of :root ("--chart-sent") that the theme sets. */
  color: string;
}

const DARK = "(prefers-color-scheme: dark)";

/** Time labels as the console writes times: "14:00", with "28 Nov 2026" under the first of each day. */
function timeLabels(timeZone: string) {
  return (_plot: uPlot, splits: number[]) =>
    splits.map((seconds, index) => {
      const day = formatDay(seconds * 1000, timeZone);
      const clock = formatClock(seconds * 1000, timeZone);
      const previous = index > 0 ? formatDay(splits[index - 1]! * 1000, timeZone) : undefined;
      return day === previous ? clock : `${clock}\n${day}`;
    });
}

/** Room for the widest count the axis writes ("12,000"), where a fixed width cut its left digits. */
function countAxisSize(plot: uPlot, values: string[] | null, axisIndex: number, cycle: number): number {
  const axis = plot.axes[axisIndex]!;
  if (cycle > 1) return (axis as { _size?: number })._size ?? 40;
  const widest = (values ?? []).reduce((longest, value) => (value.length > longest.length ? value : longest), "");
  plot.ctx.font = (axis.font as unknown as [string])[0];
  const tick = (axis.ticks?.size ?? 10) + (axis.gap ?? 5);
  return Math.ceil(tick + plot.ctx.measureText(widest).width / devicePixelRatio + 4);
}

/** The value of `color` now: a CSS variable read from :root (the light or the dark theme). */
function resolveColor(color: string): string {
  if (!color.startsWith("--")) return color;
  return getComputedStyle(document.documentElement).getPropertyValue(color).trim() || "currentColor";
}

/** Whether the system is set dark; changes when the setting does (a canvas is not restyled by CSS). */
function useDarkScheme(): boolean {
  const [dark, setDark] = useState(() => window.matchMedia(DARK).matches);
  useEffect(() => {
    const query = window.matchMedia(DARK);
    const changed = () => setDark(query.matches);
    query.addEventListener("change", changed);
    return () => query.removeEventListener("change", changed);
  }, []);
  return dark;
}

export function TimeChart({
  title,
  times,
  series,
  timeZone,
}: {
  title: string;
  /** Unix seconds. */
  times: number[];
  series: Series[];
  timeZone: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const dark = useDarkScheme();

  // biome-ignore lint/correctness/useExhaustiveDependencies: `dark` draws it again in the other theme's colours
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const ink = resolveColor("--ink");
    const grid = resolveColor("--line");
    const axis = { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid } };
    const width = Math.max(280, element.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), timeZone),
        legend: { show: true },
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true } },
        axes: [
          { ...axis, values: timeLabels(timeZone) },
          {
            ...axis,
            size: countAxisSize,
            values: (_plot, splits) => splits.map((count) => formatNumber(count)),
          },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: resolveColor(s.color),
            width: 1.5,
            points: { show: false },
          })),
        ],
      },
      [times, ...series.map((s) => s.values)],
      element,
    );
    const resize = () => plot.setSize({ width: Math.max(280, element.clientWidth), height: 220 });
    window.addEventListener("resize", resize);
    return () => {
      window.removeEventListener("resize", resize);
      plot.destroy();
    };
  }, [times, series, timeZone, dark]);

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" />
    </figure>
  );
}

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

const DAY = 86_400;

/** Time labels as the console writes times: "14:00", with "28 Nov 2026" under the first of each day; a day chart's: the day. */
function timeLabels(timeZone: string, step: number | undefined) {
  return (_plot: uPlot, splits: number[]) =>
    splits.map((seconds, index) => {
      const day = formatDay(seconds * 1000, timeZone);
      if (step !== undefined && step >= DAY) return day;
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

/**
 * The x scale: the times given, widened by half a step each side when there is a step (a day chart's
 * one day is a point in the middle of its day, where uPlot alone spread one time over years).
 */
function timeRange(times: number[], step: number | undefined): uPlot.Range.Function {
  return (_plot, min, max) => {
    const first = times[0] ?? min;
    const last = times[times.length - 1] ?? max;
    const pad = step === undefined ? (first === last ? 1800 : 0) : step / 2;
    return [first - pad, last + pad];
  };
}

/** Counts start at 0 and go a tenth above the largest (or to `top`), so no value sits on the edge or off it. */
function fromZero(top: number | undefined): uPlot.Range.Function {
  return (_plot, _min, max) => [0, top ?? (max > 0 ? Math.ceil(max * 1.1) : 1)];
}

/** A day chart's ticks: each day with data when they fit, else uPlot's own. */
function daySplits(times: number[]) {
  return (plot: uPlot, _axis: number, min: number, max: number) => {
    if (times.length * 90 <= plot.width) return times.filter((time) => time >= min && time <= max);
    const every = Math.ceil((times.length * 90) / Math.max(1, plot.width));
    return times.filter((_time, index) => index % every === 0);
  };
}

export function TimeChart({
  title,
  times,
  series,
  timeZone,
  step,
  yMax,
}: {
  title: string;
  /** Unix seconds. */
  times: number[];
  series: Series[];
  timeZone: string;
  /** Seconds between points when each stands for a period (86400: a day each); labels and range follow it. */
  step?: number;
  /** The y axis's top when the values have one (a rate in %: 105, room above 100 for its dot). */
  yMax?: number;
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
        scales: { x: { time: true, range: timeRange(times, step) }, y: { range: fromZero(yMax) } },
        axes: [
          {
            ...axis,
            values: timeLabels(timeZone, step),
            // Room for a day under its time ("30 Nov 2026", about 75 px): at 50 px two days' labels overlapped at 390 px.
            space: 80,
            ...(step !== undefined && step >= DAY ? { splits: daySplits(times) } : {}),
          },
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
            // A lone point (one day of traffic) has no line to draw: its dot is what shows it.
            points: { show: times.length <= 60 },
          })),
        ],
        hooks: {
          // What the chart drew, for tests and for anyone reading the page's markup.
          draw: [
            (plot) => {
              element.dataset.xFrom = new Date((plot.scales.x!.min ?? 0) * 1000).toISOString();
              element.dataset.xTo = new Date((plot.scales.x!.max ?? 0) * 1000).toISOString();
              element.dataset.yMax = String(plot.scales.y!.max ?? 0);
            },
          ],
        },
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
  }, [times, series, timeZone, dark, step, yMax]);

  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" data-testid="time-chart" />
    </figure>
  );
}

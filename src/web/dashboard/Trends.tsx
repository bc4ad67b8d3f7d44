import { useQuery } from '@tanstack/react-query';
import { client as apiClient, unwrap } from './api.ts';
import { duration } from './format.ts';

interface Day {
  day: string;
  runs: number;
  failed: number;
  errorRate: number;
  p50Ms: number;
  p95Ms: number;
  cost: number;
}

const WIDTH = 300;
const HEIGHT = 90;

/**
 * One small bar chart over the days (an SVG drawn here: a chart library would weigh more than the
 * whole page). `bars` gives each day's value and, optionally, the part of it to mark (failures).
 */
function Bars({
  title,
  days,
  value,
  marked,
  format,
}: {
  title: string;
  days: readonly Day[];
  value: (d: Day) => number;
  marked?: (d: Day) => number;
  format: (n: number) => string;
}) {
  const max = Math.max(...days.map(value), 0);
  const step = WIDTH / Math.max(1, days.length);
  const peak = days.reduce<Day | undefined>((best, d) => (!best || value(d) > value(best) ? d : best), undefined);
  const summary = peak && max > 0 ? `${title}: highest ${format(value(peak))} on ${peak.day}` : `${title}: nothing in these days`;
  return (
    <figure className="chart">
      <figcaption>
        {title} <span className="hint">(highest {format(max)})</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary}>
        {days.map((d, i) => {
          const height = max > 0 ? (value(d) / max) * (HEIGHT - 4) : 0;
          const part = marked && max > 0 ? (marked(d) / max) * (HEIGHT - 4) : 0;
          return (
            <g key={d.day}>
              <rect className="bar-all" x={i * step + 1} y={HEIGHT - height} width={Math.max(1, step - 2)} height={height}>
                <title>{`${d.day}: ${format(value(d))}`}</title>
              </rect>
              {part > 0 ? <rect className="bar-marked" x={i * step + 1} y={HEIGHT - part} width={Math.max(1, step - 2)} height={part} /> : null}
            </g>
          );
        })}
      </svg>
    </figure>
  );
}

/** Runs over the last `days` days: how many (failures marked), error rate, latency p50 and p95, and cost. */
export function Trends({ token, profile, days = 30 }: { token: string; profile?: string; days?: number }) {
  const stats = useQuery({
    queryKey: ['stats', profile ?? '', days],
    queryFn: (): Promise<{ days: Day[] }> => unwrap(apiClient(token).v1.stats.runs.$get({ query: { days: String(days), ...(profile ? { profile } : {}) } })),
    refetchInterval: 30_000,
  });
  if (stats.error) return <p role="alert">{(stats.error as Error).message}</p>;
  if (!stats.data) return <p role="status">Loading…</p>;
  const series = stats.data.days;
  const count = (n: number) => n.toLocaleString('en');
  return (
    <div className="charts">
      <Bars title="Runs a day (failed marked)" days={series} value={(d) => d.runs} marked={(d) => d.failed} format={count} />
      <Bars title="Error rate" days={series} value={(d) => d.errorRate} format={(n) => `${Math.round(n * 100)}%`} />
      <Bars title="Latency p50" days={series} value={(d) => d.p50Ms} format={duration} />
      <Bars title="Latency p95" days={series} value={(d) => d.p95Ms} format={duration} />
      <Bars title="Cost a day" days={series} value={(d) => d.cost} format={(n) => String(Math.round(n * 1e6) / 1e6)} />
    </div>
  );
}

import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';

/** The sum of a metric's samples whose labels include `labels` (a counter over every other label). */
export const sampleValue = (
  families: PrometheusFamily[],
  name: string,
  labels: Record<string, string> = {},
): number => {
  const family = families.find((f) => f.name === name);
  if (!family) throw new Error(`no metric ${name}`);
  const matching = family.metrics.filter((m) =>
    Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
  );
  return matching.reduce((sum, m) => sum + Number(m.value ?? m.count ?? 0), 0);
};

/** A `/metrics` page read with its bearer token and parsed; throws on any answer but 200. */
export async function scrapeMetrics(url: string, token: string): Promise<PrometheusFamily[]> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return parsePrometheusTextFormat(await res.text());
}

import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP export carries it, with the service that sent it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

const plain = (value: OtlpValue): unknown =>
  value.stringValue ?? value.intValue ?? value.boolValue ?? value.doubleValue;
const attributesOf = (list: OtlpAttribute[] | undefined): Record<string, unknown> =>
  Object.fromEntries((list ?? []).map((a) => [a.key, plain(a.value)]));

/** One field of a protobuf message: a varint's value, or the bytes of any other wire type. */
interface ProtoField {
  field: number;
  value: bigint | Buffer;
}

/** The fields of one protobuf message, in order (a decoder written for this test, apart from the service's encoder). */
function protoFields(buf: Buffer): ProtoField[] {
  const fields: ProtoField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[pos++];
      if (byte === undefined) throw new Error('protobuf: truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return result;
    }
  };
  const take = (length: number): Buffer => {
    if (pos + length > buf.length) throw new Error('protobuf: truncated field');
    pos += length;
    return buf.subarray(pos - length, pos);
  };
  while (pos < buf.length) {
    const key = Number(varint());
    const [field, wireType] = [key >>> 3, key & 7];
    if (wireType === 0) fields.push({ field, value: varint() });
    else if (wireType === 1) fields.push({ field, value: take(8) });
    else if (wireType === 2) fields.push({ field, value: take(Number(varint())) });
    else if (wireType === 5) fields.push({ field, value: take(4) });
    else throw new Error(`protobuf: wire type ${wireType}`);
  }
  return fields;
}

const bytesOf = (fields: ProtoField[], field: number): Buffer[] =>
  fields.flatMap((f) => (f.field === field && Buffer.isBuffer(f.value) ? [f.value] : []));
const firstBytes = (fields: ProtoField[], field: number): Buffer | undefined => bytesOf(fields, field)[0];

/** OTLP's KeyValue list, as the JSON encoding would give it. */
function protoAttributes(messages: Buffer[]): OtlpAttribute[] {
  return messages.map((message) => {
    const kv = protoFields(message);
    const any = protoFields(firstBytes(kv, 2) ?? Buffer.alloc(0));
    const value: OtlpValue = {};
    for (const { field, value: v } of any) {
      if (field === 1 && Buffer.isBuffer(v)) value.stringValue = v.toString('utf8');
      else if (field === 2 && typeof v === 'bigint') value.boolValue = v !== 0n;
      else if (field === 3 && typeof v === 'bigint') value.intValue = Number(BigInt.asIntN(64, v));
      else if (field === 4 && Buffer.isBuffer(v)) value.doubleValue = v.readDoubleLE(0);
    }
    return { key: firstBytes(kv, 1)?.toString('utf8') ?? '', value };
  });
}

/** An OTLP/protobuf ExportTraceServiceRequest, as the JSON encoding would give it. */
function fromProtobuf(body: Buffer): OtlpExport {
  return {
    resourceSpans: bytesOf(protoFields(body), 1).map((resourceSpans) => {
      const fields = protoFields(resourceSpans);
      return {
        resource: {
          attributes: protoAttributes(bytesOf(protoFields(firstBytes(fields, 1) ?? Buffer.alloc(0)), 1)),
        },
        scopeSpans: bytesOf(fields, 2).map((scopeSpans) => ({
          spans: bytesOf(protoFields(scopeSpans), 2).map((message) => {
            const span = protoFields(message);
            const kind = span.find((f) => f.field === 6)?.value;
            return {
              traceId: firstBytes(span, 1)?.toString('hex') ?? '',
              spanId: firstBytes(span, 2)?.toString('hex') ?? '',
              parentSpanId: firstBytes(span, 4)?.toString('hex') ?? '',
              name: firstBytes(span, 5)?.toString('utf8') ?? '',
              kind: typeof kind === 'bigint' ? Number(kind) : 0,
              attributes: protoAttributes(bytesOf(span, 9)),
            };
          }),
        })),
      };
    }),
  };
}

/**
 * A local OTLP/HTTP trace receiver standing in for a collector: it keeps every span the service's
 * processes export, in either encoding (protobuf, the default, or JSON), and counts the exports of each.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Exports received, by content type. */
  readonly exports = { protobuf: 0, json: 0 };
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = Buffer.concat(chunks);
        const json = String(req.headers['content-type']).startsWith('application/json');
        try {
          this.take(json ? (JSON.parse(body.toString('utf8')) as OtlpExport) : fromProtobuf(body));
        } catch {
          res.writeHead(400).end();
          return;
        }
        this.exports[json ? 'json' : 'protobuf'] += 1;
        // An empty ExportTraceServiceResponse: everything accepted.
        if (!json) {
          res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
          return;
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  private take(body: OtlpExport): void {
    for (const resource of body.resourceSpans ?? []) {
      const service = String(attributesOf(resource.resource?.attributes)['service.name'] ?? '');
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  inTrace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

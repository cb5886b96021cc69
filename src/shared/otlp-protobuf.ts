import type { AttributeValue, HrTime, SpanContext } from '@opentelemetry/api';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
  type IExportTraceServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { resources, tracing } from '@opentelemetry/sdk-node';

/**
 * The OTLP/HTTP protobuf span exporter, with an encoder of its own. The SDK's encoder copies every
 * string into the request a character at a time, in JavaScript, three times over (once to check it is
 * ASCII, once to size it, once to write it). Our spans carry long strings (a pg span's
 * `db.query.text` is the whole statement, 1.5 kB for a link's INSERT), and encoding took more CPU than
 * making the spans (docs/benchmarks.md, "Tracing cost"). This encoder writes the same bytes, field for
 * field (test/unit/otlp-protobuf.test.ts compares the two), with strings and ids copied by Node's
 * native `Buffer` writes. Everything else (endpoint, headers, compression, timeout, retries, from the
 * standard `OTEL_EXPORTER_OTLP_*` variables) is the SDK's own exporter machinery.
 */
export class ProtobufSpanExporter extends OTLPExporterBase<tracing.ReadableSpan[]> {
  constructor() {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions({}, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        spanSerializer,
        'otlp_http_span_exporter',
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}

export const spanSerializer: ISerializer<tracing.ReadableSpan[], IExportTraceServiceResponse> = {
  serializeRequest: encodeExportRequest,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/** What the SDK's `ProtobufTraceSerializer.serializeRequest` returns for `spans`, encoded faster. */
export function encodeExportRequest(spans: tracing.ReadableSpan[]): Uint8Array {
  type Scope = tracing.ReadableSpan['instrumentationScope'];
  const byResource = new Map<resources.Resource, Map<Scope, tracing.ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (!byScope) byResource.set(span.resource, (byScope = new Map()));
    const same = byScope.get(span.instrumentationScope);
    if (same) same.push(span);
    else byScope.set(span.instrumentationScope, [span]);
  }
  const w = new Writer(1024 + spans.length * 1024);
  for (const [resource, byScope] of byResource) {
    const resourceSpans = w.begin(1);
    const resourceMessage = w.begin(1);
    writeAttributes(w, resource.attributes, 1);
    w.varintField(2, 0);
    w.end(resourceMessage);
    for (const [scope, scopeSpans] of byScope) writeScopeSpans(w, scope, scopeSpans);
    w.optionalString(3, resource.schemaUrl);
    w.end(resourceSpans);
  }
  return w.finish();
}

function writeScopeSpans(
  w: Writer,
  scope: tracing.ReadableSpan['instrumentationScope'],
  spans: tracing.ReadableSpan[],
): void {
  const start = w.begin(2);
  const scopeMessage = w.begin(1);
  w.stringField(1, scope.name);
  w.optionalString(2, scope.version);
  w.end(scopeMessage);
  for (const span of spans) writeSpan(w, span);
  w.optionalString(3, scope.schemaUrl);
  w.end(start);
}

function writeSpan(w: Writer, span: tracing.ReadableSpan): void {
  const start = w.begin(2);
  const ctx = span.spanContext();
  w.idField(1, ctx.traceId);
  w.idField(2, ctx.spanId);
  w.optionalString(3, ctx.traceState?.serialize());
  const parent = span.parentSpanContext;
  if (parent?.spanId) w.idField(4, parent.spanId);
  w.stringField(5, span.name);
  // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
  w.varintField(6, span.kind + 1);
  w.timeField(7, span.startTime);
  w.timeField(8, span.endTime);
  writeAttributes(w, span.attributes, 9);
  w.varintField(10, span.droppedAttributesCount);
  for (const event of span.events) {
    const eventStart = w.begin(11);
    w.timeField(1, event.time);
    w.stringField(2, event.name);
    if (event.attributes) writeAttributes(w, event.attributes, 3);
    w.varintField(4, event.droppedAttributesCount ?? 0);
    w.end(eventStart);
  }
  w.varintField(12, span.droppedEventsCount);
  for (const link of span.links) {
    const linkStart = w.begin(13);
    w.idField(1, link.context.traceId);
    w.idField(2, link.context.spanId);
    w.optionalString(3, link.context.traceState?.serialize());
    if (link.attributes) writeAttributes(w, link.attributes, 4);
    w.varintField(5, link.droppedAttributesCount ?? 0);
    w.fixed32Field(6, flagsOf(link.context, link.context.isRemote));
    w.end(linkStart);
  }
  w.varintField(14, span.droppedLinksCount);
  const status = w.begin(15);
  w.optionalString(2, span.status.message);
  w.varintField(3, span.status.code);
  w.end(status);
  w.fixed32Field(16, flagsOf(ctx, parent?.isRemote));
  w.end(start);
}

/** OTLP's span flags: the W3C trace flags, and whether the parent (or link) is known to be remote. */
function flagsOf(ctx: SpanContext, remote: boolean | undefined): number {
  return (ctx.traceFlags & 0xff) | 0x100 | (remote ? 0x200 : 0);
}

/** Attributes, or the entries of a key-value list, as repeated `KeyValue` fields. */
function writeAttributes(w: Writer, attributes: object, field: number): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    const start = w.begin(field);
    w.stringField(1, key);
    const valueStart = w.begin(2);
    writeAnyValue(w, Reflect.get(attributes, key));
    w.end(valueStart);
    w.end(start);
  }
}

const INT64_MIN = -(2 ** 63);
const INT64_END = 2 ** 63;

/** An attribute value as OTLP's `AnyValue`; `null` and `undefined` (allowed in arrays) as an empty one. */
function writeAnyValue(w: Writer, value: AttributeValue | unknown): void {
  if (typeof value === 'string') w.stringField(1, value);
  else if (typeof value === 'boolean') w.varintField(2, value ? 1 : 0);
  else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_END) w.varintField(3, value);
    else w.doubleField(4, value);
  } else if (value instanceof Uint8Array) w.bytesField(7, value);
  else if (Array.isArray(value)) {
    const start = w.begin(5);
    for (const item of value) {
      const itemStart = w.begin(1);
      writeAnyValue(w, item);
      w.end(itemStart);
    }
    w.end(start);
  } else if (typeof value === 'object' && value !== null) {
    const start = w.begin(6);
    writeAttributes(w, value, 1);
    w.end(start);
  }
}

function varintSize(value: number): number {
  let size = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) size++;
  return size;
}

// Protobuf wire types.
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

/** A growing buffer of protobuf fields. */
class Writer {
  private buf: Buffer;
  private pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  private ensure(bytes: number): void {
    const needed = this.pos + bytes;
    if (needed <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < needed) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  varintField(field: number, value: number): void {
    this.tag(field, VARINT);
    this.varint(value);
  }

  fixed32Field(field: number, value: number): void {
    this.tag(field, I32);
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(value >>> 0, this.pos);
  }

  /** An `HrTime` as nanoseconds since the epoch, a fixed64. */
  timeField(field: number, [seconds, nanos]: HrTime): void {
    this.tag(field, I64);
    this.ensure(8);
    const total = BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(nanos));
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, total), this.pos);
  }

  doubleField(field: number, value: number): void {
    this.tag(field, I64);
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  stringField(field: number, value: string): void {
    this.tag(field, LEN);
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos, length, 'utf8');
  }

  /** A string field left out when empty or missing, as the SDK leaves out optional strings. */
  optionalString(field: number, value: string | undefined): void {
    if (value) this.stringField(field, value);
  }

  /** A trace or span id (hex) as the bytes it spells. */
  idField(field: number, hex: string): void {
    this.tag(field, LEN);
    const length = hex.length >>> 1;
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(hex, this.pos, length, 'hex');
  }

  bytesField(field: number, value: Uint8Array): void {
    this.tag(field, LEN);
    this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts a length-delimited field: its tag, and one byte kept for its length, which `end` writes. */
  begin(field: number): number {
    this.tag(field, LEN);
    this.ensure(1);
    return this.pos++;
  }

  /** Writes the length of the field `begin` started, moving its content up if the length needs more than a byte. */
  end(start: number): void {
    const length = this.pos - start - 1;
    const size = varintSize(length);
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copy(this.buf, start + size, start + 1, this.pos);
      this.pos += size - 1;
    }
    let at = start;
    let v = length;
    while (v > 0x7f) {
      this.buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[at] = v;
  }

  private tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A non-negative integer below 2^53, or a negative one as its 64-bit two's complement (ten bytes). */
  private varint(value: number): void {
    this.ensure(10);
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        this.buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      this.buf[this.pos++] = v;
      return;
    }
    let big = BigInt.asUintN(64, BigInt(value));
    while (big > 0x7fn) {
      this.buf[this.pos++] = Number(big & 0x7fn) | 0x80;
      big >>= 7n;
    }
    this.buf[this.pos++] = Number(big);
  }
}

import type { AttributeValue, Attributes, HrTime, SpanContext } from '@opentelemetry/api';
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
  const byResource = new Map<resources.Resource, Map<unknown, tracing.ReadableSpan[]>>();
  for (const span of spans) {
    let byScope = byResource.get(span.resource);
    if (!byScope) byResource.set(span.resource, (byScope = new Map()));
    const same = byScope.get(span.instrumentationScope);
    if (same) same.push(span);
    else byScope.set(span.instrumentationScope, [span]);
  }
  const w = new Writer(1024 + spans.length * 1024);
  for (const [resource, byScope] of byResource) {
    w.tag(1, LEN);
    const resourceSpans = w.begin();
    w.tag(1, LEN);
    const resourceMessage = w.begin();
    writeAttributes(w, resource.attributes, 1);
    w.tag(2, VARINT);
    w.varint(0);
    w.end(resourceMessage);
    for (const scopeSpans of byScope.values()) {
      w.tag(2, LEN);
      writeScopeSpans(w, scopeSpans);
    }
    if (resource.schemaUrl) {
      w.tag(3, LEN);
      w.string(resource.schemaUrl);
    }
    w.end(resourceSpans);
  }
  return w.finish();
}

// Protobuf wire types.
const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

function writeScopeSpans(w: Writer, spans: tracing.ReadableSpan[]): void {
  const scope = spans[0]?.instrumentationScope;
  if (!scope) return;
  const start = w.begin();
  w.tag(1, LEN);
  const scopeMessage = w.begin();
  w.tag(1, LEN);
  w.string(scope.name);
  if (scope.version) {
    w.tag(2, LEN);
    w.string(scope.version);
  }
  w.end(scopeMessage);
  for (const span of spans) {
    w.tag(2, LEN);
    writeSpan(w, span);
  }
  if (scope.schemaUrl) {
    w.tag(3, LEN);
    w.string(scope.schemaUrl);
  }
  w.end(start);
}

function writeSpan(w: Writer, span: tracing.ReadableSpan): void {
  const start = w.begin();
  const ctx = span.spanContext();
  w.tag(1, LEN);
  w.hexBytes(ctx.traceId);
  w.tag(2, LEN);
  w.hexBytes(ctx.spanId);
  const traceState = ctx.traceState?.serialize();
  if (traceState) {
    w.tag(3, LEN);
    w.string(traceState);
  }
  const parent = span.parentSpanContext;
  if (parent?.spanId) {
    w.tag(4, LEN);
    w.hexBytes(parent.spanId);
  }
  w.tag(5, LEN);
  w.string(span.name);
  // OTLP's SpanKind counts from UNSPECIFIED = 0; the API's from INTERNAL = 0.
  w.tag(6, VARINT);
  w.varint(span.kind + 1);
  w.tag(7, I64);
  w.time(span.startTime);
  w.tag(8, I64);
  w.time(span.endTime);
  writeAttributes(w, span.attributes, 9);
  w.tag(10, VARINT);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) {
    w.tag(11, LEN);
    const eventStart = w.begin();
    w.tag(1, I64);
    w.time(event.time);
    w.tag(2, LEN);
    w.string(event.name);
    if (event.attributes) writeAttributes(w, event.attributes, 3);
    w.tag(4, VARINT);
    w.varint(event.droppedAttributesCount ?? 0);
    w.end(eventStart);
  }
  w.tag(12, VARINT);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) {
    w.tag(13, LEN);
    const linkStart = w.begin();
    w.tag(1, LEN);
    w.hexBytes(link.context.traceId);
    w.tag(2, LEN);
    w.hexBytes(link.context.spanId);
    const linkTraceState = link.context.traceState?.serialize();
    if (linkTraceState) {
      w.tag(3, LEN);
      w.string(linkTraceState);
    }
    if (link.attributes) writeAttributes(w, link.attributes, 4);
    w.tag(5, VARINT);
    w.varint(link.droppedAttributesCount ?? 0);
    w.tag(6, I32);
    w.fixed32(flagsOf(link.context, link.context.isRemote));
    w.end(linkStart);
  }
  w.tag(14, VARINT);
  w.varint(span.droppedLinksCount);
  w.tag(15, LEN);
  const status = w.begin();
  if (span.status.message) {
    w.tag(2, LEN);
    w.string(span.status.message);
  }
  w.tag(3, VARINT);
  w.varint(span.status.code);
  w.end(status);
  w.tag(16, I32);
  w.fixed32(flagsOf(ctx, parent?.isRemote));
  w.end(start);
}

/** OTLP's span flags: the W3C trace flags, and whether the parent (or link) is known to be remote. */
function flagsOf(ctx: SpanContext, remote: boolean | undefined): number {
  return (ctx.traceFlags & 0xff) | 0x100 | (remote ? 0x200 : 0);
}

function writeAttributes(w: Writer, attributes: Attributes, field: number): void {
  for (const key in attributes) {
    if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
    w.tag(field, LEN);
    writeKeyValue(w, key, attributes[key]);
  }
}

function writeKeyValue(w: Writer, key: string, value: unknown): void {
  const start = w.begin();
  w.tag(1, LEN);
  w.string(key);
  w.tag(2, LEN);
  const valueStart = w.begin();
  writeAnyValue(w, value);
  w.end(valueStart);
  w.end(start);
}

const INT64_MIN = -(2 ** 63);
const INT64_END = 2 ** 63;

/** An attribute value as OTLP's `AnyValue`; `null` and `undefined` (allowed in arrays) as an empty one. */
function writeAnyValue(w: Writer, value: AttributeValue | unknown): void {
  if (typeof value === 'string') {
    w.tag(1, LEN);
    w.string(value);
  } else if (typeof value === 'boolean') {
    w.tag(2, VARINT);
    w.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= INT64_MIN && value < INT64_END) {
      w.tag(3, VARINT);
      w.varint(value);
    } else {
      w.tag(4, I64);
      w.double(value);
    }
  } else if (value instanceof Uint8Array) {
    w.tag(7, LEN);
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.tag(5, LEN);
    const start = w.begin();
    for (const item of value) {
      w.tag(1, LEN);
      const itemStart = w.begin();
      writeAnyValue(w, item);
      w.end(itemStart);
    }
    w.end(start);
  } else if (typeof value === 'object' && value !== null) {
    w.tag(6, LEN);
    const start = w.begin();
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      w.tag(1, LEN);
      writeKeyValue(w, key, Reflect.get(value, key));
    }
    w.end(start);
  }
}

function varintSize(value: number): number {
  let size = 1;
  for (let v = value; v >= 0x80; v = Math.floor(v / 0x80)) size++;
  return size;
}

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

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  /** A non-negative integer below 2^53, or a negative one as its 64-bit two's complement (ten bytes). */
  varint(value: number): void {
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

  fixed32(value: number): void {
    this.ensure(4);
    this.pos = this.buf.writeUInt32LE(value >>> 0, this.pos);
  }

  /** An `HrTime` as nanoseconds since the epoch, a fixed64. */
  time([seconds, nanos]: HrTime): void {
    this.ensure(8);
    const total = BigInt(Math.trunc(seconds)) * 1_000_000_000n + BigInt(Math.trunc(nanos));
    this.pos = this.buf.writeBigUInt64LE(BigInt.asUintN(64, total), this.pos);
  }

  double(value: number): void {
    this.ensure(8);
    this.pos = this.buf.writeDoubleLE(value, this.pos);
  }

  string(value: string): void {
    const length = Buffer.byteLength(value, 'utf8');
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos, length, 'utf8');
  }

  /** A trace or span id (hex) as the bytes it spells. */
  hexBytes(hex: string): void {
    const length = hex.length >>> 1;
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(hex, this.pos, length, 'hex');
  }

  bytes(value: Uint8Array): void {
    this.varint(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts a length-delimited field: one byte kept for its length, which `end` writes. */
  begin(): number {
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
}

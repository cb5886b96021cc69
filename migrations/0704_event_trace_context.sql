-- The W3C trace context ({"traceparent": "...", "tracestate": "..."}) an event was recorded in, when
-- tracing is on: whichever process relays the event, and however late, its webhook POST continues
-- that trace. NULL when tracing was off.
ALTER TABLE events ADD COLUMN trace_context jsonb;

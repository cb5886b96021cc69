import type { OrderEmailWire } from '../orders/mappers.js';
import type { MessageKind, ShownEmailState } from './kinds.js';
import type { MessageRow } from './repository.js';
import type { EmailSettings } from './settings.js';

/** `sending` is a hand-off whose outcome is not recorded yet: to a reader, still queued. */
export const shownState = (state: MessageRow['state']): ShownEmailState =>
  state === 'sending' || state === 'skipped' ? 'queued' : state;

export function toOrderEmailWire(
  message: Pick<MessageRow, 'kind' | 'recipient' | 'state' | 'sentAt'>,
): OrderEmailWire & { kind: MessageKind } {
  return {
    kind: message.kind,
    to: message.recipient,
    state: shownState(message.state),
    sent_at: message.sentAt ? message.sentAt.toISOString() : null,
  };
}

export function toEmailSettingsWire(settings: EmailSettings) {
  return {
    object: 'email_settings' as const,
    sender_name: settings.senderName,
    reply_to: settings.replyTo,
    messages: { ...settings.messages },
  };
}

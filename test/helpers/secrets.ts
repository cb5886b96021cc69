/**
 * Credentials and secrets the suite has seen in responses (API keys, panel tokens, webhook secrets,
 * OAuth states), so the log test can search the captured logs for each of them.
 */
const seen = new Set<string>();

const PATTERNS = [
  /vk_(?:test|live)_[0-9A-Za-z]{32,}/g,
  /pt_[0-9A-Za-z]{32,}/g,
  /whsec_[A-Za-z0-9+/=]{20,}/g,
  /[?&]state=([0-9A-Za-z]{16,})/g,
];

export function noteSecretsIn(text: string): void {
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern)) seen.add(match[1] ?? match[0]);
  }
}

export const noteSecret = (value: string): void => {
  seen.add(value);
};

export const secretsSeen = (): string[] => [...seen];

/**
 * The fiscal provider port: what the invoice job asks of a provider that issues NFS-e (Focus NFe is
 * the first adapter, ./focusnfe.ts). Every call names the invoice by our reference (the order code),
 * so a call repeated after a lost answer finds the same invoice instead of making a second one.
 * No answer (down, slow, a 5xx) is thrown as UpstreamUnavailableError: the job tries again later.
 */

/** Who issues, and what, as the integration's config says. */
export interface IssuerSettings {
  token: string;
  cnpj: string;
  inscricaoMunicipal: string;
  codigoMunicipio: string;
  itemListaServico: string;
  /** ISS rate in percent. */
  aliquota: number;
  issRetido: boolean;
}

/** One invoice to issue. */
export interface InvoiceDraft {
  /** When the service was sold (the order's payment). */
  issuedAt: Date;
  buyer: { name: string; email: string | null; document: string };
  /** The amount, `"97.00"`. */
  amount: string;
  description: string;
}

/** Where an invoice stands at the provider. */
export type InvoiceAnswer =
  | { state: 'processing' }
  | { state: 'authorized'; number: string | null; pdfUrl: string | null; xmlUrl: string | null }
  | { state: 'refused'; message: string }
  | { state: 'canceled' }
  | { state: 'not_found' };

/**
 * The provider refused a request (bad settings, a field it wants): not worth retrying until something
 * changes. `field` names the buyer's data it asked for, when that is what it refused for.
 */
export class ProviderRefusedError extends Error {
  override name = 'ProviderRefusedError';
  constructor(
    message: string,
    readonly field: 'customer.document' | 'customer.address' | null = null,
  ) {
    super(message);
  }
}

/** What "check settings" learned from the provider, in words for the seller. */
export interface SettingsCheck {
  ok: boolean;
  message: string;
}

/** A notice the provider sent to our webhook, read: the reference it is about and where it stands. */
export interface InvoiceNotice {
  ref: string;
  answer: InvoiceAnswer;
}

export interface InvoiceProvider {
  /** Submits the invoice under `ref`; the provider's answer (usually `processing`). */
  submit(settings: IssuerSettings, ref: string, draft: InvoiceDraft): Promise<InvoiceAnswer>;
  /** Reads where the invoice of `ref` stands. */
  read(settings: IssuerSettings, ref: string): Promise<InvoiceAnswer>;
  /** Cancels the authorised invoice of `ref`; `canceled`, or `refused` with the provider's reason. */
  cancel(settings: IssuerSettings, ref: string, justification: string): Promise<InvoiceAnswer>;
  /** Asks the provider whether these settings can issue (the token opens, the municipality issues…). */
  checkSettings(settings: IssuerSettings): Promise<SettingsCheck>;
  /**
   * Registers the provider's webhook for the issuer's invoices: `url` receives each answer, with
   * `authorization` as its Authorization header. The provider's id of the hook.
   */
  registerHook(settings: IssuerSettings, url: string, authorization: string): Promise<string>;
  /** Removes a hook registered before; one the provider no longer knows is removed already. */
  removeHook(settings: IssuerSettings, id: string): Promise<void>;
  /** Reads a notice's JSON body as the provider sends it; undefined when it is not one. */
  readNotice(body: unknown): InvoiceNotice | undefined;
}

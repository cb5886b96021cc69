import { expect } from 'chai';
import express, { type Request } from 'express';
import { CATALOGUE, type Messages } from '../../src/checkout/messages.js';
import { acceptedLanguage, fromQuery, LANGUAGES, type Language } from '../../src/ui/language.js';

/** What Express's negotiation makes of an Accept-Language header, on a request as Express builds it. */
function fromAcceptLanguage(header: string | undefined): Language | undefined {
  const req: Request = Object.create(express.request);
  req.headers = header === undefined ? {} : { 'accept-language': header };
  return acceptedLanguage(req);
}

describe('buyer pages: language', () => {
  it('takes the first language of ours in Accept-Language, by q-value, and none when it names none', () => {
    expect(fromAcceptLanguage('en-US,en;q=0.9,pt-BR;q=0.8')).to.equal('en');
    expect(fromAcceptLanguage('pt-BR,pt;q=0.9,en;q=0.8')).to.equal('pt-BR');
    expect(fromAcceptLanguage('pt-PT')).to.equal('pt-BR');
    expect(fromAcceptLanguage('fr-FR, en;q=0.5')).to.equal('en');
    expect(fromAcceptLanguage('en;q=0.4, pt;q=0.6')).to.equal('pt-BR');
    expect(fromAcceptLanguage('EN-gb')).to.equal('en');
    // q=0 means "not this one"; ties keep the header's order.
    expect(fromAcceptLanguage('en;q=0, pt-BR;q=0.1')).to.equal('pt-BR');
    expect(fromAcceptLanguage('pt;q=0.5, en;q=0.5')).to.equal('pt-BR');
    for (const none of [undefined, '', '*', 'fr, de;q=0.9', 'en;q=0', 'garbage;;q=x'])
      expect(fromAcceptLanguage(none), String(none)).to.equal(undefined);
  });

  it('takes `lang` from the query only when it names exactly one language of ours', () => {
    expect(fromQuery('lang=en')).to.equal('en');
    expect(fromQuery('plink=x&lang=pt-BR')).to.equal('pt-BR');
    expect(fromQuery('lang=pt')).to.equal('pt-BR');
    expect(fromQuery('lang=en-GB')).to.equal('en');
    for (const none of ['', 'lang=', 'lang=fr', 'lang=en&lang=pt-BR', 'lang=%E0%A4%A', 'language=en'])
      expect(fromQuery(none), none).to.equal(undefined);
  });

  it('has every message in both languages, none empty, and the Portuguese one written in Portuguese', () => {
    /** Every text leaf of a catalogue, functions called with a placeholder, by dotted path. */
    const leaves = (messages: Messages): Map<string, string> => {
      const out = new Map<string, string>();
      const walk = (value: unknown, path: string): void => {
        if (typeof value === 'string') out.set(path, value);
        else if (typeof value === 'function') out.set(path, String(value('X', 'Y')));
        else if (value !== null && typeof value === 'object')
          for (const [key, child] of Object.entries(value)) walk(child, path ? `${path}.${key}` : key);
      };
      walk(messages, '');
      return out;
    };
    const [pt, en] = LANGUAGES.map((lang) => leaves(CATALOGUE[lang]));
    if (!pt || !en) throw new Error('two languages expected');
    expect([...pt.keys()]).to.deep.equal([...en.keys()]);
    for (const [path, text] of [...pt, ...en]) expect(text.trim(), path).not.to.equal('');
    // Words that are the same in both languages; anything else equal would be a missed translation.
    const same = [...pt].filter(([path, text]) => en.get(path) === text).map(([path]) => path);
    expect(same).to.have.members(['paymentMethods.pix', 'price.total', 'simulation.linkLine']);
  });
});

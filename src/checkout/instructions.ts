/**
 * The pictures of payment instructions, made by well-kept libraries: the Pix QR code (`qrcode`) and
 * the boleto's Interleaved 2 of 5 barcode (`bwip-js`). Both are SVG, sent inline as `data:` images
 * (the pages' CSP allows images from `data:` only), so they stay sharp when zoomed or printed.
 */
import QRCode from 'qrcode';

const svgDataUri = (svg: string): string =>
  `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;

/** A QR code of `text` with the standard four-module quiet zone. */
export async function qrCodeImage(text: string): Promise<string> {
  return svgDataUri(await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
}

// bwip-js is large and only a boleto needs it: loaded on first use.
let bwip: Promise<typeof import('bwip-js')> | undefined;

/**
 * The ITF barcode of a boleto's 44 digits, as FEBRABAN prints it (Interleaved 2 of 5, wide bars three
 * times the narrow ones), with a quiet zone either side.
 */
export async function boletoBarcodeImage(barcode: string): Promise<string> {
  bwip ??= import('bwip-js');
  const { toSVG } = await bwip;
  return svgDataUri(
    toSVG({
      bcid: 'interleaved2of5',
      text: barcode,
      height: 13,
      includetext: false,
      paddingwidth: 10,
      backgroundcolor: 'FFFFFF',
    }),
  );
}

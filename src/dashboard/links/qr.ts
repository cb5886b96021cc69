/**
 * QR codes of a link's address, made by `qrcode`: SVG for the page and its download (sharp at any
 * size, for print), PNG for where an image must be a bitmap (a social post). Error correction M and
 * the standard four-module quiet zone, as the checkout's Pix code.
 */
import QRCode from 'qrcode';

const OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

export const qrSvg = (text: string): Promise<string> => QRCode.toString(text, { ...OPTIONS, type: 'svg' });

/** 1,024 pixels a side: enough to print a few centimetres wide at 300 dpi and still scan. */
export const qrPng = (text: string): Promise<Buffer> =>
  QRCode.toBuffer(text, { ...OPTIONS, type: 'png', width: 1024 });

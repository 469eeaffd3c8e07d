/** The part of qrcode-terminal (which ships no types) the WeChat login uses. */
declare module 'qrcode-terminal' {
  const qrcode: { generate(text: string, options: { small?: boolean }, callback: (qr: string) => void): void };
  export default qrcode;
}

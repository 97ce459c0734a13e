/** `color-name` ships no types: the CSS colour names, each as its red, green and blue values (0-255). */
declare module "color-name" {
  const colors: Readonly<Record<string, readonly [number, number, number]>>;
  export default colors;
}

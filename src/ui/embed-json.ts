/**
 * JSON for a `<script type="application/json">` block: `<`, `>`, `&` and the JS line separators escaped, so no
 * value (a task containing `</script>`, say) can close the block or start markup.
 */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

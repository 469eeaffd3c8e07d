// The gateway's model for `claw send` in the cli-start bench: every request gets the same short
// text (a faux script module, so it answers any number of turns; reply.json plays one).
export default function respond() {
  return { text: 'Hello from the bench.' };
}

// Tests import the modules they test directly, not 'weft'; this does for each test file what `import 'weft'` does
// for a library user: the sim model's responders of Weft's own engines are registered (src/sim-responders.ts).
import '../src/sim-responders.js';

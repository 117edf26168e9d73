// Addresses that may imitate another: a part mixing scripts ("ex\u0430mple" with a Cyrillic a), or written
// wholly in letters that look Latin. The card's notes say it for the addresses the backend put on the
// card; this marks every address on it, typed ones included.
// Letters of other scripts drawn like Latin ones (a subset of Unicode's confusables, UTS #39): the
// backend's list (multitool.toolkit.common.LATIN_LOOKALIKES), so the page marks what the card's notes say.
const LOOKALIKES = new Set([..."\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u03b1\u03b9\u03ba\u03bd\u03bf\u03c1\u03c4\u03c5\u03c7\u0405\u0406\u0408\u0410\u0412\u0415\u041a\u041c\u041d\u041e\u0420\u0421\u0422\u0425\u0430\u0435\u043e\u0440\u0441\u0443\u0445\u0455\u0456\u0458\u04bb\u04cf\u0501\u051a\u051b\u051c\u051d"]);
/** @type {[string, RegExp][]} */
const SCRIPTS = ["Latin", "Cyrillic", "Greek", "Armenian", "Georgian", "Cherokee", "Hebrew", "Arabic", "Devanagari", "Thai", "Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"]
  .map((name) => /** @type {[string, RegExp]} */ ([name, new RegExp(`\\p{Script=${name}}`, "u")]));
// East Asian writing mixes scripts as a rule, and with Latin (UTS #39 "Highly Restrictive"): one script here.
const EAST_ASIAN = new Set(["Han", "Hiragana", "Katakana", "Hangul", "Bopomofo"]);
const LETTER = /\p{L}/u;

function scriptOf(char) {
  const found = SCRIPTS.find(([, pattern]) => pattern.test(char));
  const script = found ? found[0] : "Other";
  return EAST_ASIAN.has(script) ? "CJK" : script;
}

// RFC 3492's decoder, for a domain label the browser turned into "xn--..." (an email input does).
function punycode(encoded) {
  const base = 36;
  const adapt = (delta, points, first) => {
    delta = first ? Math.floor(delta / 700) : delta >> 1;
    delta += Math.floor(delta / points);
    let k = 0;
    for (; delta > 455; k += base) delta = Math.floor(delta / 35);
    return k + Math.floor((36 * delta) / (delta + 38));
  };
  const cut = encoded.lastIndexOf("-");
  const output = cut > 0 ? [...encoded.slice(0, cut)].map((c) => c.codePointAt(0)) : [];
  let [n, i, bias, index] = [128, 0, 72, cut > 0 ? cut + 1 : 0];
  while (index < encoded.length) {
    const old = i;
    for (let w = 1, k = base; ; k += base) {
      const c = encoded.charCodeAt(index++);
      const digit = c - 48 < 10 ? c - 22 : c - 65 < 26 ? c - 65 : c - 97 < 26 ? c - 97 : base;
      if (digit >= base || index > encoded.length) throw new Error("not punycode");
      i += digit * w;
      const t = k <= bias ? 1 : k >= bias + 26 ? 26 : k - bias;
      if (digit < t) break;
      w *= base - t;
    }
    bias = adapt(i - old, output.length + 1, old === 0);
    n += Math.floor(i / (output.length + 1));
    i %= output.length + 1;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

function unicodeLabel(label) {
  if (!/^xn--/i.test(label)) return label;
  try {
    return punycode(label.slice(4).toLowerCase());
  } catch {
    return label;
  }
}

// Why an address may imitate another (a part mixing scripts, or written wholly in letters that look
// Latin), or null: UTS #39's mixed-script check per part, as the backend's lookalike_words. A domain
// the browser wrote as "xn--" is read as its letters, and named both ways.
/**
 * @param {string} typed an address
 * @returns {string | null}
 */
export function lookalike(typed) {
  const at = String(typed).lastIndexOf("@");
  const labels = typed.slice(at + 1).split(".").map(unicodeLabel);
  const shown = `${typed.slice(0, at + 1)}${labels.join(".")}`;
  const address = shown === typed ? typed : `${typed} (${shown})`;
  const parts = [[typed.slice(0, at), "before the @"], ...labels.map((label) => [label, "in its domain"])];
  for (const [part, where] of parts) {
    const letters = [...part].filter((c) => LETTER.test(c));
    const scripts = [...new Set(letters.map(scriptOf))].sort();
    if (scripts.length > 1 && scripts.join() !== "CJK,Latin") return `${address} mixes ${scripts.join(" and ")} letters ${where}: it may imitate another address.`;
    if (scripts.length === 1 && scripts[0] !== "Latin" && letters.every((c) => LOOKALIKES.has(c))) {
      return `${address} is written in ${scripts[0]} letters that look Latin ${where}: it may imitate another address.`;
    }
  }
  return null;
}


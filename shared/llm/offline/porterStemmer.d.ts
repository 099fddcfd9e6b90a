/** The Porter2 (Snowball English) stemmer that wink-nlp's `its.stem` uses, shipped in its English model. */
declare module "wink-eng-lite-web-model/dist/porter-stemmer.js" {
  const stem: (word: string) => string;
  export default stem;
}

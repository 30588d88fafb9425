/**
 * A response body already serialised as JSON: routes send `json` as is, which lets a deck's 250
 * stored card documents go out without a parse and a stringify each.
 */
export class RawJson {
  readonly json: string;
  constructor(json: string) {
    this.json = json;
  }
}

export { applyOptions, deleteOptions, getOptions, listOptions, writeOptions } from "./options";
export {
  type ParsedQuery,
  parseParameter,
  parseQuery,
  queryFor,
  queryOf,
  type RawQuery,
  readQuery,
} from "./parse";
export {
  OPERATIONS,
  type Operation,
  type ParameterName,
  parametersOf,
  QUERY_PARAMETERS,
  type QueryOf,
} from "./table";

export { applyOptions, deleteOptions, getOptions, listOptions, writeOptions } from "./options";
export {
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

// data-safety.ts on the local server.
import { describeDataSafety } from "./data-safety";

describeDataSafety("local");

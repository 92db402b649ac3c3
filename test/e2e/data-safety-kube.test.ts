// data-safety.ts on the kube server.
import { describeDataSafety } from "./data-safety";

describeDataSafety("kube");

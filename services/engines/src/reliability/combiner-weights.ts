/**
 * The combiner's fit (combiner.ts), over the rules of judgement 2.2.0.
 * Written by `pnpm eval:combiner --write` on the development sets it names; refit after any change of the rules.
 */
import type { CombinerWeights } from './combiner.js'

export const COMBINER_WEIGHTS: CombinerWeights = {
  judgement: "2.2.0",
  threshold: 0.6,
  fitted_on: "old,dev,heldout,v3,v4,v5,v6,v7,tables",
  signals: ["rule:unsupported","rule:quantity","rule:derived","rule:text","rule:boolean-supported","rule:boolean-contradicted","rule:boolean-doubtful","rule:conflict","rule:relation","rule:consequence","rule:failure-report","rule:denied","rule:failed-action","rule:relation-false","rule:relation-unread","rule:action-unbacked","rule:action-refused","rule:conversion","rule:entity-denied","rule:entity-conflict","rule:empty","confidence","coverage","cosine","figures","no_figures","figures_in_evidence","figures_in_request","dim:money","dim:percent","dim:duration","dim:length","dim:area","dim:mass","dim:volume","dim:temperature","dim:data","dim:energy","dim:speed","dim:date","dim:time","dim:count","dim:ratio","denial","log_words","log_statements","no_statements","tool_errors","evidence:document","evidence:tool_result","evidence:tool_error","evidence:message","others_supported"],
  mean: [0.310763,0.308429,0.13612,0.090124,0.048564,0.022648,0,0.018212,0.015877,0.005137,0.01074,0.008172,0.006304,0.00537,0.003969,0.003502,0.002568,0.001634,0.000934,0.000934,0,0.774961,0.496754,0.518157,0.229792,0.293953,0.389022,0.064015,0.183283,0.077516,0.153397,0.033388,0.004903,0.02615,0.008172,0.009806,0.016811,0.004436,0.003736,0.13145,0.077516,0.186085,0.002568,0.131917,2.308444,3.388933,0.003502,0.210133,0.136353,0.515527,0.017511,0.012375,0.601938],
  sd: [0.462806,0.461845,0.342915,0.286359,0.214955,0.148778,1,0.133716,0.124999,0.071486,0.103077,0.090028,0.079147,0.073084,0.062876,0.059076,0.050613,0.040394,0.030546,0.030546,1,0.141189,0.307639,0.190483,0.21416,0.455571,0.453304,0.219397,0.386898,0.267408,0.36037,0.179647,0.06985,0.159581,0.090028,0.09854,0.128561,0.066456,0.061006,0.337892,0.267408,0.389175,0.050613,0.3384,0.374893,0.661431,0.059076,0.407403,0.343163,0.499759,0.131166,0.11055,0.205414],
  weights: [-0.323085,0.246212,0.107042,0.171106,0.410142,-0.37325,0,-0.391854,0.046035,0.080817,0.571081,-0.143642,-0.385156,-0.135695,-0.024963,-0.148938,-0.154837,-0.00277,-0.180452,-0.115148,0,0.029279,0.210527,0.092859,0.725088,0.213138,0.435764,-0.121729,-0.015214,0.047456,-0.069648,0.051528,0.121001,0.047769,-0.023481,0.021625,0.048453,0.079027,-0.023461,0.148516,-0.02957,0.004841,0.022831,0.225507,-0.249217,0.000837,0.004567,-0.129658,0.045199,0.305313,-0.013255,0.05578,0.259303],
  bias: 0.98419,
  claims: 4283,
}

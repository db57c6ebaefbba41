import { pipelineSuite } from './pipeline-suite.js'

pipelineSuite('embedded')

import { codingAgentSuite } from './coding-agent-suite.js'

codingAgentSuite('kafka')

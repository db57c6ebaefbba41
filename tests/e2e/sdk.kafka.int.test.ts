import { sdkSuite } from './sdk-suite.js'

sdkSuite('kafka')

import { sdkSuite } from './sdk-suite.js'

sdkSuite('embedded')

export {
  computePipelineStage,
  type OpportunityFacts,
  type PipelineStage,
  type PipelineStageInput,
  type PipelineStageResult,
} from './pipeline-stage.js';

/** The MongoDB collections of persistent job scheduling, named as in the IPF text. */
export const JobCollectionNames = {
  jobSpecifications: 'job_specifications',
  jobExecutionStatus: 'job_execution_status',
} as const;

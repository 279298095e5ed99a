/** Every MongoDB collection the system uses. */
export const CollectionNames = {
  processes: 'processes',
  processEvents: 'process_events',
  agentBreakers: 'agent_breakers',
  leases: 'leases',
  agentPauses: 'agent_pauses',
  agentRegistrations: 'agent_registrations',
} as const;

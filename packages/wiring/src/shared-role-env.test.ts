import { parseSharedRoles, sharedRoleEnv } from './shared-role-env';

describe('parseSharedRoles', () => {
  it('gives the roles in start order, whatever order they are listed in', () => {
    expect(parseSharedRoles('submission, scheduler,supervisor')).toEqual(['supervisor', 'scheduler', 'submission']);
    expect(parseSharedRoles('scheduler,supervisor')).toEqual(['supervisor', 'scheduler']);
  });

  it('refuses no role, an unknown role and a role given twice, naming it', () => {
    expect(() => parseSharedRoles(' , ')).toThrow('SAS_ROLES names no role; give some of supervisor, scheduler, submission');
    expect(() => parseSharedRoles('scheduler,dashboard')).toThrow("SAS_ROLES: 'dashboard' is not a role one process can host");
    expect(() => parseSharedRoles('scheduler,scheduler')).toThrow("SAS_ROLES names 'scheduler' twice");
  });
});

describe('sharedRoleEnv', () => {
  const roles = ['supervisor', 'scheduler', 'submission'] as const;

  it('gives each role an instance id of its own and keeps the rest of the environment', () => {
    const env = { INSTANCE_ID: 'core-1', REDIS_URL: 'redis://r', WORKFLOWS_FILE: '/w.json' };
    expect(sharedRoleEnv(env, 'scheduler', roles)).toEqual({ ...env, INSTANCE_ID: 'scheduler-core-1' });
    expect(sharedRoleEnv(env, 'supervisor', roles)['INSTANCE_ID']).toBe('supervisor-core-1');
    // Without one, each service makes its own from its name and the pid, already distinct.
    expect(sharedRoleEnv({ REDIS_URL: 'redis://r' }, 'scheduler', roles)['INSTANCE_ID']).toBeUndefined();
  });

  it('takes a role\'s probe port from <ROLE>_PROBE_PORT, and refuses one fixed PROBE_PORT for several roles', () => {
    expect(sharedRoleEnv({ PROBE_PORT: '9464', SCHEDULER_PROBE_PORT: '9465' }, 'scheduler', roles)['PROBE_PORT']).toBe('9465');
    expect(() => sharedRoleEnv({ PROBE_PORT: '9464' }, 'supervisor', roles)).toThrow(/PROBE_PORT=9464 cannot serve the probes of supervisor, scheduler, submission in one process; give each role its own \(SUPERVISOR_PROBE_PORT/);
    expect(sharedRoleEnv({ PROBE_PORT: '0' }, 'supervisor', roles)['PROBE_PORT']).toBe('0');
    expect(sharedRoleEnv({ PROBE_PORT: '9464' }, 'scheduler', ['scheduler'])['PROBE_PORT']).toBe('9464');
  });
});

import type { Db } from '../shared/db/index.js';
import { NotFoundError } from '../shared/errors.js';
import { sha256Hex } from '../shared/ids.js';
import { generatePanelToken } from '../keys/key-format.js';
import * as companies from './repository.js';

/** Issues a panel token for a user; the full token is returned once and stored hashed. */
export async function createPanelToken(db: Db, userId: number, companyId?: number): Promise<string> {
  const user = await companies.findUser(db, userId);
  // A token names a user, and through it a company: refuse one the caller did not mean.
  if (!user || (companyId !== undefined && user.companyId !== companyId)) {
    throw new NotFoundError(
      companyId === undefined ? `No user ${userId}` : `No user ${userId} in company ${companyId}`,
    );
  }
  const token = generatePanelToken();
  await companies.insertPanelToken(db, { userId, tokenHash: sha256Hex(token.value), prefix: token.prefix });
  return token.value;
}

/** Panel token for the company's owner. */
export async function createOwnerToken(db: Db, companyId: number): Promise<string> {
  const owner = await companies.findOwner(db, companyId);
  if (!owner) throw new NotFoundError(`Company ${companyId} has no owner`);
  return createPanelToken(db, owner.id);
}

export async function setCompanyActive(
  db: Db,
  companyId: number,
  active: boolean,
): Promise<companies.CompanyRow> {
  const row = await companies.setCompanyActive(db, companyId, active);
  if (!row) throw new NotFoundError(`No company ${companyId}`);
  return row;
}

/** Sets the company's own platform fee (null parts: the deployment's PLATFORM_FEE_*). */
export async function setCompanyPlatformFee(
  db: Db,
  companyId: number,
  fee: { percent: string | null; fixed: string | null },
): Promise<companies.CompanyRow> {
  const row = await companies.setCompanyPlatformFee(db, companyId, fee);
  if (!row) throw new NotFoundError(`No company ${companyId}`);
  return row;
}

// Contact groups and their contacts: the public face for the routes and for bulk sends to a group.
export { addContacts, type ContactEntry, type ContactImportReport, listContacts } from "./contacts.js";
export { createGroup, deleteGroup, getGroup, groupExists, listGroups } from "./groups.js";
export { registerV2ContactRoutes } from "./v2-routes.js";
